package dev.spinel.server.engine;

import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.store.Database;
import dev.spinel.store.StripeLocks;

/**
 * What {@link BlockedOperation#tryServe} works with: the waiter's database, the key that became
 * ready, the serving thread's stripe locks, and the waiter's private reply buffer (delivered to the
 * waiter through its own event loop once served).
 *
 * <p>Not thread-safe: used by one serving thread during one attempt.
 */
public final class ServeContext {
    private final Blocking blocking;
    final Waiter waiter;
    private final byte[] key;
    private final StripeLocks locks;
    private final ReplyBuffer out;

    ServeContext(Blocking blocking, Waiter waiter, byte[] key, StripeLocks locks, ReplyBuffer out) {
        this.blocking = blocking;
        this.waiter = waiter;
        this.key = key;
        this.locks = locks;
        this.out = out;
    }

    /**
     * The waiter's session, for read-only use (its engine and statistics): never write to its reply
     * buffer or locks here, they belong to its own loop; use {@link #out()} and {@link #locks()}.
     */
    public Session session() {
        return waiter.session;
    }

    /** The database the client blocked in. */
    public Database db() {
        return waiter.db;
    }

    /** The key that became ready (one of the keys the client waits on). */
    public byte[] key() {
        return key;
    }

    /** Stripe locks to take; must be unlocked before {@code tryServe} returns. */
    public StripeLocks locks() {
        return locks;
    }

    /** Where the waiter's reply is written (same protocol version as its session; a per-thread scratch buffer). */
    public ReplyBuffer out() {
        return out;
    }

    /** The time of this attempt, in Unix ms. */
    public long now() {
        return System.currentTimeMillis();
    }

    /**
     * Claims the waiter for this attempt; call with the key's stripe lock held and before changing
     * anything. False means the waiter is gone (timed out, disconnected, unblocked).
     */
    public boolean claim() {
        return waiter.state.compareAndSet(Waiter.WAITING, Waiter.SERVED);
    }

    /**
     * Hands what the served waiter did to the append-only log as a plain command (Redis propagates a
     * served BLPOP as LPOP, BZPOPMIN as ZPOPMIN, BLMOVE as LMOVE...). Call after the change, with the
     * stripes still held, so the log keeps the order of writes to the key. The log position lands in
     * the waiter's session before its reply is handed to its loop, which orders the two.
     */
    public void propagate(byte[]... parts) {
        Session s = waiter.session;
        // The popped key (and the destination of LMOVE, or of RPOPLPUSH: a served BRPOPLPUSH) changed: WATCH,
        // tracking and observers hear of it here.
        s.engine().keyEvents().modifiedBy(s, waiter.db.index(), parts[1]);
        String name = new String(parts[0], StandardCharsets.US_ASCII);
        if (parts.length > 2 && ("LMOVE".equalsIgnoreCase(name) || "RPOPLPUSH".equalsIgnoreCase(name))) {
            s.engine().keyEvents().modifiedBy(s, waiter.db.index(), parts[2]);
        }
        Propagator p = s.engine().hooks().propagator();
        if (p == null) {
            return;
        }
        Args a = Args.of(parts);
        Command cmd = s.engine().commands().get(new String(parts[0], StandardCharsets.US_ASCII));
        if (cmd != null) {
            p.propagate(s, cmd, a);
        }
    }

    /**
     * Hands several commands the served waiter did to the log as one MULTI/EXEC block (a served
     * XREADGROUP's XCLAIMs), as Redis propagates them; one command is logged as {@link #propagate} does.
     * Call after the change, with the stripes still held. Unlike {@link #propagate} it does not signal the
     * key as modified: the commands using it (stream group reads) do not, in Redis.
     */
    public void propagateAll(List<byte[][]> commands) {
        if (commands.isEmpty()) {
            return;
        }
        Propagator p = waiter.session.engine().hooks().propagator();
        if (p != null) {
            p.propagateServed(waiter.session, waiter.db.index(), commands);
        }
    }

    /** Marks another key as ready (e.g. the destination of BLMOVE), to serve its waiters next. */
    public void signal(Database db, byte[] key) {
        blocking.signal(db, key, 0, key.length);
    }
}
