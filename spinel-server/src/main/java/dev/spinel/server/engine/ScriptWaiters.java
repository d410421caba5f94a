package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.server.scripting.Scripting;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The clients that arrive while a script runs but before it is busy (before {@code busy-reply-threshold}):
 * as in Redis, they are not served until the script ends or the threshold passes (then they get BUSY, or
 * run if their command is allowed while busy). Their loop does not wait: the engine suspends each one with
 * its request to retry ({@link ClientConnection#suspend}) and registers it here; it resumes when the
 * script ends ({@link #release}) or at the threshold (a timer on its own loop). So no event loop blocks on
 * the stripes a script holds for longer than the threshold, and SCRIPT KILL always gets through.
 *
 * <p>Thread-safety: postpone runs on the session's loop, release on the script's thread; the set is
 * guarded by this object's lock.
 */
final class ScriptWaiters {
    private final Scripting scripting;
    private final Set<Session> waiting = new LinkedHashSet<>();

    ScriptWaiters(Scripting scripting) {
        this.scripting = scripting;
    }

    /** Suspends {@code session} to run {@code retry} again when the script ends or turns busy. Session's loop. */
    void postpone(Session session, Args retry, long thresholdMillis) {
        ClientConnection c = session.connection();
        c.suspend(retry);
        synchronized (this) {
            waiting.add(session);
        }
        if (!scripting.running()) {
            release(); // the script ended between the dispatcher's check and the add
            return;
        }
        if (thresholdMillis > 0) {
            c.schedule(() -> wake(session), Math.max(1, scripting.millisUntilBusy(thresholdMillis)));
        }
    }

    /** The script ended: every waiting client runs its request again, in arrival order. */
    void release() {
        List<Session> wake;
        synchronized (this) {
            if (waiting.isEmpty()) {
                return;
            }
            wake = new ArrayList<>(waiting);
            waiting.clear();
        }
        for (Session s : wake) {
            s.connection().resume();
        }
    }

    /** Timer at the threshold: the session retries (and gets BUSY) unless the script's end already woke it. */
    private void wake(Session session) {
        boolean mine;
        synchronized (this) {
            mine = waiting.remove(session);
        }
        if (mine) {
            session.connection().resume();
        }
    }
}
