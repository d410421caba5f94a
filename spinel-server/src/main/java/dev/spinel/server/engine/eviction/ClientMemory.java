package dev.spinel.server.engine.eviction;

import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.Transaction;
import dev.spinel.server.engine.ports.ClientConnection;
import dev.spinel.server.engine.pubsub.PubSub;
import dev.spinel.server.engine.pubsub.Subscriptions;
import dev.spinel.server.engine.tracking.TrackingState;

/**
 * What one client holds in memory, as Redis's getClientMemoryUsage counts it: CLIENT LIST's tot-mem and the
 * figure {@code maxmemory-clients} evicts by. Its buffers (query buffer and its free space, the session's own
 * reply buffer, bytes queued in the transport) and the per-client overhead of its state, with Redis 7.0's
 * structure sizes on a 64-bit build: the queued MULTI commands ({@link Transaction#memory}), 56 bytes per
 * watched key (a list node and a watchedKey), 24 per pattern (a list node), 24 per channel or shard channel
 * (a dict entry) plus a slot pointer, 32 per tracking prefix (Redis counts rax nodes; one per prefix here).
 *
 * <p>Thread-safety: reads another session's fields racily, as an estimate; callable from any thread.
 */
public final class ClientMemory {
    static final long PER_WATCHED_KEY = 24 + 32;
    static final long PER_PATTERN = 24;
    static final long PER_CHANNEL = 24 + 8;
    static final long PER_TRACKING_PREFIX = 32;

    private ClientMemory() {
    }

    /** The client's total ({@code current}: the bytes of the command it is running, counted by CLIENT INFO about itself). */
    public static long of(Session s, long current) {
        ClientConnection c = s.connection();
        long n = c.queryBufferLength() + c.queryBufferFree() + s.out().ownCapacity() + c.pendingOutputBytes() + current;
        return n + multi(s) + state(s);
    }

    /** CLIENT LIST's multi-mem: the queued commands and the watched keys. */
    public static long multi(Session s) {
        Transaction t = s.transaction();
        long n = t == null ? 0 : t.memory();
        n += PER_WATCHED_KEY * s.engine().watches().count(s);
        return n;
    }

    private static long state(Session s) {
        long n = 0;
        if (s.hasSubscriptions()) {
            Subscriptions subs = s.subscriptions();
            n += PER_PATTERN * subs.set(PubSub.Kind.PATTERN).size();
            n += PER_CHANNEL * (subs.set(PubSub.Kind.CHANNEL).size() + subs.set(PubSub.Kind.SHARD).size());
        }
        TrackingState t = s.tracking();
        if (t != null) {
            n += PER_TRACKING_PREFIX * t.prefixes().size();
        }
        return n;
    }
}
