package dev.spinel.server.engine.tracking;

import dev.spinel.store.ByteKey;
import java.util.Map;
import java.util.TreeMap;

/**
 * The keys changed under CLIENT TRACKING BCAST prefixes since the last broadcast, as Redis keeps them per
 * prefix until its beforeSleep ({@code trackingBroadcastInvalidationMessages}): per prefix, each key once,
 * in byte order (Redis's radix tree), with the client that changed it last (NOLOOP clients do not hear of
 * their own writes).
 *
 * <p>Thread-safety: none; each thread has its own ({@link Tracking} holds them per thread), filled by the
 * commands the thread runs and emptied by the same thread.
 */
final class BroadcastBatch {
    /** Prefix → changed key → the session that changed it last (null when no client did, e.g. expiry). */
    private TreeMap<ByteKey, TreeMap<ByteKey, TrackedClient>> byPrefix = new TreeMap<>();

    boolean isEmpty() {
        return byPrefix.isEmpty();
    }

    void add(ByteKey prefix, ByteKey key, TrackedClient writer) {
        byPrefix.computeIfAbsent(prefix, p -> new TreeMap<>()).put(key, writer);
    }

    /** Takes the pending keys, leaving the batch empty. */
    Map<ByteKey, TreeMap<ByteKey, TrackedClient>> drain() {
        TreeMap<ByteKey, TreeMap<ByteKey, TrackedClient>> taken = byPrefix;
        byPrefix = new TreeMap<>();
        return taken;
    }
}
