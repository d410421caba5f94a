package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.store.Database;
import dev.spinel.store.StripeLocks;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Blocking commands (BLPOP, BRPOP, BLMOVE, BLMPOP; later BZPOPMIN and friends), as Redis's
 * blocked.c:
 * <ol>
 *   <li>A command that finds nothing to serve calls {@link #block} <em>while holding the stripe locks
 *       of all its keys</em>: the client joins a FIFO queue per (database, key) and its session is
 *       suspended (its pipelined commands wait in the query buffer). Timeout 0 waits forever; otherwise
 *       a timer on the client's own event loop answers with {@link BlockedOperation#timeoutReply}.</li>
 *   <li>A write that may make data available (LPUSH, LMOVE's destination, ...) calls {@link #signal}
 *       with the key's stripe lock held; it only records the key as ready (cheap when nobody waits).</li>
 *   <li>After each command the engine calls {@link #serveReady} on the same thread: for every ready key,
 *       waiters are tried first-come-first-served. Each attempt locks the stripes, re-checks the key and
 *       claims the waiter under the lock, so two waiters never get the same element and an element is
 *       never taken for a client that has just timed out or gone. The reply is written into the
 *       waiter's private buffer and handed to the waiter's own event loop ({@code ClientConnection.execute}),
 *       which appends it, resumes the session and runs its pending input.</li>
 * </ol>
 * A client that disconnects while blocked is removed by {@link #disconnected}; {@link #unblock} is
 * CLIENT UNBLOCK's hook.
 *
 * <p>Thread-safety: safe for all event loops. The queues are guarded by this object's monitor, which is
 * only ever taken inside (never around) stripe locks; each waiter's state is an atomic that moves once.
 */
public final class Blocking {
    private static final byte[] UNBLOCKED = "UNBLOCKED client unblocked via CLIENT UNBLOCK".getBytes();
    private static final String ROLE_CHANGED = "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)";

    private final Map<KeyRef, ArrayDeque<Waiter>> queues = new HashMap<>();
    private final ConcurrentHashMap<Long, Waiter> bySession = new ConcurrentHashMap<>();
    private final AtomicInteger blockedClients = new AtomicInteger();
    private final ThreadLocal<ArrayDeque<KeyRef>> ready = ThreadLocal.withInitial(ArrayDeque::new);
    private final ThreadLocal<StripeLocks> serveLocks = ThreadLocal.withInitial(StripeLocks::new);
    /** Scratch reply buffer of the serving thread; the reply is copied out exactly sized per waiter. */
    private final ThreadLocal<ReplyBuffer> scratch = ThreadLocal.withInitial(ReplyBuffer::new);

    /** Clients blocked right now (INFO's {@code blocked_clients}). */
    public int blockedClients() {
        return blockedClients.get();
    }

    /** Whether the session is blocked (CLIENT LIST flag {@code b}). */
    public boolean isBlocked(long sessionId) {
        return bySession.containsKey(sessionId);
    }

    /**
     * Blocks the session on {@code keys} of {@code db}. The caller holds the stripe locks of all the
     * keys (so that no push can slip between its check and this registration) and has written no reply.
     * When the session may not block ({@code Session.denyBlocking()}, inside EXEC or a script) the
     * operation's {@link BlockedOperation#nonBlockingReply} is written instead.
     *
     * @param timeoutMillis relative timeout in ms; 0 waits forever
     */
    public void block(Session s, Database db, byte[][] keys, long timeoutMillis, BlockedOperation op) {
        if (s.denyBlocking()) {
            op.nonBlockingReply(s.out());
            return;
        }
        Waiter w = new Waiter(s, db, keys, op);
        synchronized (this) {
            for (byte[] k : keys) {
                ArrayDeque<Waiter> q = queues.computeIfAbsent(new KeyRef(db.index(), k), x -> new ArrayDeque<>());
                if (!q.contains(w)) {
                    q.addLast(w);
                }
            }
        }
        bySession.put(s.id(), w);
        blockedClients.incrementAndGet();
        s.suspend();
        if (timeoutMillis > 0) {
            w.timer = s.connection().schedule(() -> expire(w), timeoutMillis);
        }
    }

    /** Records that a key may now have data for its waiters. Call with the key's stripe lock held. */
    public void signal(Database db, byte[] buf, int off, int len) {
        if (blockedClients.get() == 0) {
            return;
        }
        KeyRef k = new KeyRef(db.index(), Arrays.copyOfRange(buf, off, off + len));
        synchronized (this) {
            if (!queues.containsKey(k)) {
                return;
            }
        }
        ArrayDeque<KeyRef> r = ready.get();
        if (!r.contains(k)) {
            r.addLast(k);
        }
    }

    /**
     * SWAPDB: every key waited on in database {@code dbIndex} may now hold data (Redis's
     * scanDatabaseForReadyKeys). Call with the database's stripes held.
     */
    public void signalDatabase(int dbIndex) {
        if (blockedClients.get() == 0) {
            return;
        }
        ArrayDeque<KeyRef> r = ready.get();
        synchronized (this) {
            for (KeyRef k : queues.keySet()) {
                if (k.db == dbIndex && !r.contains(k)) {
                    r.addLast(k);
                }
            }
        }
    }

    /** Serves the waiters of every key this thread made ready. Call after each command, no locks held. */
    public void serveReady() {
        ArrayDeque<KeyRef> r = ready.get();
        KeyRef k;
        while ((k = r.pollFirst()) != null) {
            serveKey(k);
        }
    }

    private void serveKey(KeyRef k) {
        StripeLocks locks = serveLocks.get();
        while (true) {
            Waiter w;
            synchronized (this) {
                ArrayDeque<Waiter> q = queues.get(k);
                w = q == null ? null : q.peekFirst();
            }
            if (w == null) {
                return;
            }
            boolean served;
            ReplyBuffer out = scratch(w);
            long start = System.nanoTime();
            try {
                served = w.op.tryServe(new ServeContext(this, w, k.key, locks, out));
            } finally {
                locks.unlock();
            }
            if (w.state.get() == Waiter.WAITING) {
                return; // nothing left to serve on this key
            }
            if (served && w.state.get() == Waiter.SERVED) {
                w.reply = Arrays.copyOf(out.array(), out.size());
                remove(w);
                w.session.engine().effects().unblocked(w.session, w.command, (System.nanoTime() - start) / 1000, w.reply);
                deliver(w);
            } else {
                remove(w); // gone meanwhile; its own path completes it
            }
        }
    }

    /** Timer task on the waiter's loop. */
    private void expire(Waiter w) {
        if (w.state.compareAndSet(Waiter.WAITING, Waiter.GONE)) {
            remove(w); // not logged in the slow log: Redis 7.0 logs a blocked command only when it is served
            if (!w.replyDropped) {
                w.op.timeoutReply(w.session.out());
            }
            w.session.resume();
        }
    }

    /** Forgets a disconnected session's wait, if any (called when its connection closes). */
    public void disconnected(Session s) {
        Waiter w = bySession.get(s.id());
        if (w != null && w.state.compareAndSet(Waiter.WAITING, Waiter.GONE)) {
            remove(w);
        }
    }

    /**
     * CLIENT UNBLOCK: ends the session's wait as if it timed out, or with
     * {@code -UNBLOCKED client unblocked via CLIENT UNBLOCK} when {@code error}. Returns false when the
     * session is not blocked (CLIENT UNBLOCK then answers 0). Safe from any thread.
     */
    public boolean unblock(long sessionId, boolean error) {
        Waiter w = bySession.get(sessionId);
        if (w == null || !w.op.clientUnblockable() || !w.state.compareAndSet(Waiter.WAITING, Waiter.GONE)) {
            return false;
        }
        remove(w);
        ReplyBuffer out = scratch(w);
        if (error) {
            out.error(new String(UNBLOCKED));
        } else {
            w.op.timeoutReply(out);
        }
        w.reply = Arrays.copyOf(out.array(), out.size());
        w.session.engine().effects().unblockedByClient(w.command, w.reply); // not slow-logged, as Redis
        deliver(w);
        return true;
    }

    /** Ends the session's wait with the error {@code message} (a SHUTDOWN that failed or was aborted); false when not blocked. */
    public boolean unblockWithError(long sessionId, String message) {
        Waiter w = bySession.get(sessionId);
        return w != null && unblockWithError(w, message);
    }

    /**
     * Ends with an error every wait on keys (not WAIT's or SHUTDOWN's, which wait on none) that {@code check}
     * refuses: cluster mode's redirect of clients blocked on a slot this node no longer serves. Costs one
     * read when nobody is blocked. Safe from any thread.
     *
     * @return how many waits were ended
     */
    public int refuseKeyWaits(KeyWaitCheck check) {
        if (blockedClients.get() == 0) {
            return 0;
        }
        int ended = 0;
        for (Waiter w : bySession.values()) {
            if (w.keys.length == 0 || w.state.get() != Waiter.WAITING) {
                continue;
            }
            String error = check.refusal(w.session, w.keys[0], w.command);
            if (error != null && unblockWithError(w, error)) {
                ended++;
            }
        }
        return ended;
    }

    /** Decides whether a client blocked on keys may go on waiting ({@link #refuseKeyWaits}). */
    public interface KeyWaitCheck {
        /**
         * The error (without its leading '-') ending the wait of {@code session}, blocked by {@code command}
         * (null when unknown) on {@code firstKey} among others of the same slot; null to let it wait. Called
         * on the caller's thread while the session is suspended: the session's own fields set before it blocked
         * may be read, nothing changed.
         */
        String refusal(Session session, byte[] firstKey, Args command);
    }

    private boolean unblockWithError(Waiter w, String message) {
        if (!w.state.compareAndSet(Waiter.WAITING, Waiter.GONE)) {
            return false;
        }
        remove(w);
        ReplyBuffer out = scratch(w).error(message);
        w.reply = Arrays.copyOf(out.array(), out.size());
        deliver(w);
        return true;
    }

    /** Ends the session's wait with {@code +OK}: its command ran on another thread (DEBUG RELOAD); false when not blocked. */
    public boolean unblockWithOk(long sessionId) {
        Waiter w = bySession.get(sessionId);
        if (w == null || !w.state.compareAndSet(Waiter.WAITING, Waiter.GONE)) {
            return false;
        }
        remove(w);
        ReplyBuffer out = scratch(w).ok();
        w.reply = Arrays.copyOf(out.array(), out.size());
        deliver(w);
        return true;
    }

    /**
     * The server becomes a replica (REPLICAOF, FAILOVER), as Redis's disconnectAllBlockedClients: a client blocked
     * on a master must not be served by the new master's stream (its pop would exist on this node only), so every
     * blocked client gets {@code -UNBLOCKED force unblock from blocking operation, instance state changed (master ->
     * replica?)} and is disconnected after that reply. Safe from any thread.
     */
    public void disconnectAll() {
        for (Waiter w : bySession.values()) {
            if (!w.state.compareAndSet(Waiter.WAITING, Waiter.GONE)) {
                continue;
            }
            remove(w);
            ReplyBuffer out = scratch(w).error(ROLE_CHANGED);
            w.reply = Arrays.copyOf(out.array(), out.size());
            try {
                w.session.connection().execute(() -> {
                    if (!w.replyDropped) {
                        w.session.out().raw(w.reply);
                    }
                    w.session.closeAfterReply();
                    w.session.resume();
                });
            } catch (RejectedExecutionException e) {
                // the client's event loop is shutting down: the connection is gone with it
            }
        }
    }

    private ReplyBuffer scratch(Waiter w) {
        ReplyBuffer out = scratch.get();
        out.clear();
        out.resp3(w.resp3);
        return out;
    }

    private void remove(Waiter w) {
        synchronized (this) {
            for (byte[] key : w.keys) {
                KeyRef k = new KeyRef(w.db.index(), key);
                ArrayDeque<Waiter> q = queues.get(k);
                if (q != null) {
                    q.remove(w);
                    if (q.isEmpty()) {
                        queues.remove(k);
                    }
                }
            }
        }
        if (bySession.remove(w.session.id(), w)) {
            blockedClients.decrementAndGet();
            w.op.ended();
        }
        var t = w.timer;
        if (t != null) {
            t.cancel(false);
        }
    }

    /** Hands the waiter's reply to its own loop, which appends it and resumes the session. */
    private void deliver(Waiter w) {
        try {
            w.session.connection().execute(() -> {
                if (!w.replyDropped) {
                    w.session.out().raw(w.reply);
                }
                Outbox.runAfterServedReply(w.session.outbox); // its own keys' invalidations, after its reply
                w.session.resume();
            });
        } catch (RejectedExecutionException e) {
            // the client's event loop is shutting down: the connection is gone with it
        }
    }

    /** A key of one database, as a map key of the waiter queues. Immutable. */
    static final class KeyRef {
        final int db;
        final byte[] key;
        private final int hash;

        KeyRef(int db, byte[] key) {
            this.db = db;
            this.key = key;
            this.hash = 31 * db + Arrays.hashCode(key);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof KeyRef k && k.db == db && Arrays.equals(k.key, key);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
