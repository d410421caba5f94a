package dev.spinel.server.replication;

import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.engine.BlockedOperation;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.ServeContext;
import dev.spinel.server.engine.Session;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The clients blocked in WAIT: each waits until {@code wanted} replicas acknowledged an offset, or its
 * timeout. The wait is an ordinary blocked operation of the engine's {@code Blocking} (so CLIENT UNBLOCK,
 * timeouts and disconnects work as for BLPOP); an ACK that satisfies it ends it early with the count.
 *
 * <p>Thread-safety: thread-safe. {@link #acked} is called from any replica's event loop; the map of
 * waits is concurrent and the replicas' acknowledged offsets are volatile.
 */
final class ReplicaWaits {
    private final Engine engine;
    private final Collection<ReplicaLink> replicas;
    private final Map<Long, Wait> waits = new ConcurrentHashMap<>();

    ReplicaWaits(Engine engine, Collection<ReplicaLink> replicas) {
        this.engine = engine;
        this.replicas = replicas;
    }

    /** Online replicas whose acknowledged offset reached {@code target}. */
    int acksAt(long target) {
        int n = 0;
        for (ReplicaLink l : replicas) {
            if (l.online() && l.ackOffset >= target) {
                n++;
            }
        }
        return n;
    }

    /**
     * Answers at once (false) when enough replicas acknowledged {@code target} or the client may not block
     * (MULTI, scripts); else blocks the client (true).
     */
    boolean await(Session s, long target, long wanted, long timeout) {
        int now = acksAt(target);
        if (now >= wanted || s.executingTransaction() || s.denyBlocking()) {
            s.out().integer(now);
            return false;
        }
        Wait w = new Wait(target, wanted, s.id());
        waits.put(s.id(), w);
        engine.blocking().block(s, s.db(), new byte[0][], timeout, w);
        return true;
    }

    /** Clients blocked in WAIT right now. */
    int waiting() {
        return waits.size();
    }

    /** An ACK (or a lost replica): WAITs now satisfied answer. */
    void acked() {
        if (waits.isEmpty()) {
            return;
        }
        for (Wait w : waits.values()) {
            if (acksAt(w.target) >= w.wanted) {
                engine.blocking().unblock(w.sessionId, false);
            }
        }
    }

    /** A blocked WAIT: answers with the acknowledging replicas when an ACK satisfies it or its timeout passes. */
    private final class Wait implements BlockedOperation {
        final long target;
        final long wanted;
        final long sessionId;

        Wait(long target, long wanted, long sessionId) {
            this.target = target;
            this.wanted = wanted;
            this.sessionId = sessionId;
        }

        @Override
        public boolean tryServe(ServeContext ctx) {
            return false;
        }

        @Override
        public void timeoutReply(ReplyBuffer out) {
            out.integer(acksAt(target));
        }

        @Override
        public void ended() {
            waits.remove(sessionId, this); // also when the client went without a reply (disconnected, role change)
        }
    }
}
