package dev.spinel.server.engine;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * CLIENT PAUSE state, as Redis 7.0: a pause type (WRITE delays commands that write or may
 * replicate; ALL delays every command, CLIENT UNPAUSE included) and an end time. A new pause keeps
 * the stronger type and the later end of the current one. A delayed client is not rejected: the
 * engine suspends its connection with the command to retry ({@link ClientConnection#suspend}) and
 * registers it here; it resumes at the end time (a timer on its own event loop) or on UNPAUSE.
 *
 * <p>Thread-safety: the state is two volatile fields written under this object's lock; the hot
 * path reads one volatile ({@link #active}). Postponed sessions are in a concurrent queue.
 */
public final class ClientPause {
    public static final int OFF = 0;
    public static final int WRITE = 1;
    public static final int ALL = 2;

    private volatile int type = OFF;
    private volatile long endMillis;
    private final Queue<Session> postponed = new ConcurrentLinkedQueue<>();

    /** True when a pause may be in effect (cheap check for the dispatcher). */
    boolean active() {
        return type != OFF;
    }

    /** True if a command with these properties must wait now; ends an expired pause. */
    boolean mustWait(boolean writes, long now) {
        int t = type;
        if (t == OFF) {
            return false;
        }
        if (endMillis <= now) {
            unpause();
            return false;
        }
        return t == ALL || writes;
    }

    /** CLIENT PAUSE: {@code end} is an absolute Unix time in ms. */
    public synchronized void pause(long end, int newType) {
        if (type != OFF && endMillis <= System.currentTimeMillis()) {
            type = OFF;
        }
        if (type == OFF) {
            endMillis = end;
            type = newType;
        } else {
            endMillis = Math.max(endMillis, end);
            type = Math.max(type, newType);
        }
    }

    /** CLIENT UNPAUSE (or the end time passed): resumes every postponed client on its own loop. */
    public void unpause() {
        synchronized (this) {
            type = OFF;
        }
        Session s;
        while ((s = postponed.poll()) != null) {
            s.connection().resume();
        }
    }

    public long endMillis() {
        return endMillis;
    }

    /** Suspends {@code session}, to run {@code retry} again when the pause ends. Event loop of the session. */
    void postpone(Session session, dev.spinel.protocol.Args retry, long now) {
        ClientConnection c = session.connection();
        c.suspend(retry);
        postponed.add(session);
        if (type == OFF && postponed.remove(session)) {
            // UNPAUSE on another loop drained the queue between our check and the add.
            c.resume();
            return;
        }
        c.schedule(() -> recheck(session), Math.max(1, endMillis - now));
    }

    /** Timer on the session's loop: resume if the pause ended, else wait for the (extended) end. */
    private void recheck(Session session) {
        if (!session.suspended() || !postponed.contains(session)) {
            return;
        }
        long now = System.currentTimeMillis();
        if (type != OFF && endMillis > now) {
            session.connection().schedule(() -> recheck(session), endMillis - now);
            return;
        }
        postponed.remove(session);
        if (type != OFF) {
            unpause();
        }
        session.connection().resume();
    }
}
