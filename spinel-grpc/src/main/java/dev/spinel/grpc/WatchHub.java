package dev.spinel.grpc;

import java.util.Arrays;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The open Watch streams and the matching of changed keys against them. Changes come from the engine's
 * change hook (RESP commands, expiry; the same points that feed keyspace notifications and WATCH) and
 * from the gRPC service's own writes.
 *
 * <p>Thread-safety: thread-safe; {@link #changed} may be called from any thread, also with a stripe
 * lock held (it only queues).
 */
final class WatchHub {
    private final CopyOnWriteArrayList<Watcher> watchers = new CopyOnWriteArrayList<>();

    boolean isEmpty() {
        return watchers.isEmpty();
    }

    void add(Watcher w) {
        watchers.add(w);
    }

    void remove(Watcher w) {
        watchers.remove(w);
    }

    /** {@code key} changed; {@code expired} says its TTL ran out (else: written or deleted). */
    void changed(byte[] key, boolean expired) {
        for (Watcher w : watchers) {
            if (w.matches(key)) {
                w.offer(key, expired);
            }
        }
    }

    /** The ACL users changed: each watcher checks its user may still read what it watches. */
    void aclChanged() {
        for (Watcher w : watchers) {
            w.recheck();
        }
    }

    /** The whole database changed: watchers of one key re-read it (prefix watchers cannot list what went). */
    void flushed() {
        for (Watcher w : watchers) {
            if (!w.prefix) {
                w.offer(w.target, false);
            }
        }
    }

    static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}
