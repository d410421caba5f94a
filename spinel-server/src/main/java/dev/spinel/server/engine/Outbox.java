package dev.spinel.server.engine;

import dev.spinel.server.engine.ports.ClientConnection;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A session's writes that do not come from its own command's reply: deliveries handed over by other
 * threads (pub/sub messages, MONITOR lines, invalidations), the writes due after the running command's
 * reply or after a served blocked command's reply (its own invalidations), and the pub/sub output-limit
 * state that decides whether deliveries are still written.
 *
 * <p>Made on first use ({@link #create}; an idle client never needs its queues, ~180 B), by whichever thread needs
 * it first: a publisher on another loop may be first. The session's field is volatile and set by a compare-and-set,
 * so every thread uses the one outbox that won, fully constructed.
 *
 * <p>Thread-safety: {@link #create}, {@link #deliver} and {@link #afterServedReply} may be called from any thread
 * (lock-free queues); everything else runs on the session's loop, or on the thread the session is lent to.
 */
final class Outbox {
    private static final VarHandle SESSION_OUTBOX;

    static {
        try {
            SESSION_OUTBOX = MethodHandles.lookup().findVarHandle(Session.class, "outbox", Outbox.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Session session;
    private final ClientConnection connection;
    /** Writes other loops hand to this session (pub/sub messages, MONITOR lines, invalidations). */
    private final ConcurrentLinkedQueue<Runnable> deliveries = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    /** Writes due right after the reply of this client's served blocked command (its own invalidations). */
    private final ConcurrentLinkedQueue<Runnable> afterServed = new ConcurrentLinkedQueue<>();
    /**
     * Writes that must follow the reply of the command running now (the invalidations of this tracking
     * client's own keys written inside EXEC, which Redis sends after EXEC's whole reply). Loop thread only.
     */
    private List<Runnable> afterReply;
    /** When this subscriber's output first passed the soft limit (0: not over it). */
    private long overSoftLimitSince;
    /** Past its pub/sub output limit and being closed: further deliveries are dropped, not written. */
    private boolean outputLimitReached;

    Outbox(Session session, ClientConnection connection) {
        this.session = session;
        this.connection = connection;
    }

    /** {@code session}'s outbox: made now, unless another thread made it first (then that one). */
    static Outbox create(Session session, ClientConnection connection) {
        Outbox made = new Outbox(session, connection);
        Outbox won = (Outbox) SESSION_OUTBOX.compareAndExchange(session, null, made);
        return won != null ? won : made;
    }

    /** {@link #drain} of a session's outbox if it has one ({@code null}: nothing was ever delivered). */
    static boolean drain(Outbox o) {
        return o != null && o.drain();
    }

    /** {@link #runAfterReply} of a session's outbox if it has one: a volatile read per command otherwise. */
    static void runAfterReply(Outbox o) {
        if (o != null) {
            o.runAfterReply();
        }
    }

    /** {@link #runAfterServedReply} of a session's outbox if it has one. */
    static void runAfterServedReply(Outbox o) {
        if (o != null) {
            o.runAfterServedReply();
        }
    }

    /** See {@link Session#deliver}. */
    void deliver(Runnable write) {
        deliveries.add(write);
        if (drainScheduled.compareAndSet(false, true)) {
            connection.execute(() -> {
                drainScheduled.set(false);
                connection.pushAndFlush(this::drain);
            });
        }
    }

    /** Performs the pending deliveries (on the session's loop); true if there were any. */
    boolean drain() {
        if (connection.lent()) {
            return false; // the script thread owns the reply buffer; drained when the session is given back
        }
        boolean any = false;
        Runnable r;
        while ((r = deliveries.poll()) != null) {
            if (!session.closing() && !session.killed() && !outputLimitReached) {
                r.run();
            }
            any = true;
        }
        return any;
    }

    void afterReply(Runnable write) {
        if (afterReply == null) {
            afterReply = new ArrayList<>(2);
        }
        afterReply.add(write);
    }

    /** Runs the writes queued by {@link #afterReply}: one field read when there are none. */
    void runAfterReply() {
        List<Runnable> pending = afterReply;
        if (pending != null) {
            afterReply = null;
            for (Runnable r : pending) {
                r.run();
            }
        }
    }

    /** Queues a write for right after this client's served blocked command's reply; from the serving thread. */
    void afterServedReply(Runnable write) {
        afterServed.add(write);
    }

    /** On the session's loop, after appending a served blocked command's reply. */
    void runAfterServedReply() {
        Runnable r;
        while ((r = afterServed.poll()) != null) {
            r.run();
        }
    }

    boolean outputLimitReached() {
        return outputLimitReached;
    }

    void outputLimitReached(boolean reached) {
        this.outputLimitReached = reached;
    }

    long overSoftLimitSince() {
        return overSoftLimitSince;
    }

    void overSoftLimitSince(long millis) {
        this.overSoftLimitSince = millis;
    }
}
