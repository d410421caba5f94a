package dev.spinel.server.replication;

import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.engine.BlockedOperation;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.ServeContext;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.clients.ClientPause;
import dev.spinel.server.log.Log;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Redis 7.0's wait for replicas before a shutdown ({@code shutdown-timeout}, seconds; 0 turns it off): a SHUTDOWN
 * without NOW on a server whose replicas have not all acknowledged its offset pauses client writes, asks the replicas
 * for an ACK, blocks the client and finishes once every replica acknowledged the offset or the timeout passed. A
 * SHUTDOWN meanwhile blocks too; {@code SHUTDOWN ABORT} cancels, as does a shutdown that then fails (its save): the
 * blocked clients get {@code -ERR Errors trying to SHUTDOWN. Check logs.} and writes resume (this ends a client's own
 * CLIENT PAUSE too: Spinel has one pause). A SIGTERM or SIGINT is recorded here ({@link #signalled}) until the cron
 * takes it (Redis's shutdown_asap): ABORT cancels it too, before or during its wait. INFO's
 * {@code shutdown_in_milliseconds} shows the time left.
 *
 * <p>Thread-safety: the state is guarded by this object's monitor; the finishing check runs on replication's timer
 * thread every 10 ms while a shutdown waits (Redis's serverCron), never under the monitor.
 */
public final class ShutdownWait {
    private static final byte[] GETACK = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final String FAILED = "ERR Errors trying to SHUTDOWN. Check logs.";
    private final Replication repl;
    private final Engine engine;
    /** The sessions of the SHUTDOWNs waiting. */
    private final List<Long> blocked = new ArrayList<>();
    private final BlockedOperation blockedShutdown = new BlockedOperation() {
        @Override
        public boolean tryServe(ServeContext ctx) {
            return false; // only the end of the wait answers
        }

        @Override
        public void timeoutReply(ReplyBuffer out) {
            out.error(FAILED);
        }
    };
    /** When the wait gives up on the replicas; 0 while no shutdown waits. */
    private long deadline;
    /** The first waiting SHUTDOWN's end (its save and the stop): false when it failed and the server goes on. */
    private BooleanSupplier finish;
    /** The signal that asked for a shutdown not yet over (Redis's shutdown_asap and last_sig_received), or 0. */
    private volatile int signal;

    public ShutdownWait(Replication repl) {
        this.repl = repl;
        this.engine = repl.engine();
    }

    /** Every attached replica acknowledged the current offset (Redis's isReadyToShutdown). */
    private boolean ready() {
        long offset = repl.offset();
        for (ReplicaLink l : repl.replicas()) {
            if (l.ackOffset != offset) {
                return false;
            }
        }
        return true;
    }

    private long timeoutMillis() {
        return Long.parseLong(repl.config().param("shutdown-timeout").get()) * 1000;
    }

    /**
     * SHUTDOWN without NOW: true when it waits (the client is blocked; {@code finish} runs once the replicas caught
     * up or the timeout passed, on another thread); false when the shutdown goes on now (no wait configured, every
     * replica in sync). {@code s} is null for a signal's shutdown: nothing is blocked then.
     */
    public synchronized boolean await(Session s, BooleanSupplier finish) {
        if (deadline == 0) {
            long timeout = timeoutMillis();
            if (timeout == 0 || ready()) {
                return false;
            }
            start(timeout);
            this.finish = finish;
            repl.later(this::check, 10);
        }
        if (s != null) {
            blocked.add(s.id());
            engine.blocking().block(s, s.db(), new byte[0][], 0, blockedShutdown);
        }
        return true;
    }

    private void start(long timeout) {
        deadline = System.currentTimeMillis() + timeout;
        ReplicationStream st = repl.stream();
        if (!engine.pause().active() && st != null) {
            st.appendRaw(GETACK); // as Redis's sendGetackToReplicas (a pause already holds writes: no new offset)
        }
        engine.pause().pause(Long.MAX_VALUE, ClientPause.WRITE); // Redis's PAUSE_DURING_SHUTDOWN
        Log.notice("Waiting for replicas before shutting down.");
    }

    private void check() {
        BooleanSupplier f;
        synchronized (this) {
            if (deadline == 0) {
                return; // aborted
            }
            if (!ready() && System.currentTimeMillis() < deadline) {
                repl.later(this::check, 10);
                return;
            }
            f = finish;
        }
        logReplicas();
        if (!f.getAsBoolean()) { // the finish logged why
            synchronized (this) {
                cancel();
            }
        }
    }

    /** SHUTDOWN ABORT: false when no shutdown waits and no signal asked for one. */
    public synchronized boolean abort() {
        if (deadline != 0) {
            cancel();
        } else if (signal != 0) {
            signal = 0; // asked by a signal, not taken by the cron yet
        } else {
            return false;
        }
        Log.notice("Shutdown manually aborted.");
        return true;
    }

    /** A shutdown that failed (its save): the server goes on, as Redis's cancelShutdown. */
    public synchronized void cancel() {
        signal = 0;
        if (deadline == 0) {
            return; // no wait: no pause of the shutdown's to end, no client blocked
        }
        deadline = 0;
        finish = null;
        engine.pause().unpause();
        for (long id : blocked) {
            engine.blocking().unblockWithError(id, FAILED);
        }
        blocked.clear();
    }

    /**
     * SIGTERM (unless {@code shutdown-on-sigterm} says now): the same wait, on the signal's thread, before the server
     * closes; a SHUTDOWN already waiting is left to finish on its own.
     */
    public void awaitForSignal() {
        long end;
        synchronized (this) {
            long timeout = timeoutMillis();
            if (deadline != 0 || timeout == 0 || ready() || repl.config().param("shutdown-on-sigterm").get().contains("now")) {
                return;
            }
            start(timeout);
            end = deadline;
        }
        while (!ready() && System.currentTimeMillis() < end) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        logReplicas();
    }

    /** SIGTERM or SIGINT (its number) asked for a shutdown; the cron takes it ({@link #pendingSignal}). */
    public void signalled(int sig) {
        signal = sig;
    }

    /** The signal whose shutdown is asked for and not over (cancelled or failed), or 0. */
    public int pendingSignal() {
        return signal;
    }

    /** Whether a shutdown waits for its replicas (Redis's isShutdownInitiated). */
    public synchronized boolean initiated() {
        return deadline != 0;
    }

    /** INFO's shutdown_in_milliseconds: the time left, or -1 while no shutdown waits. */
    public synchronized long remainingMillis() {
        return deadline == 0 ? -1 : Math.max(0, deadline - System.currentTimeMillis());
    }

    /** Redis's finishShutdown lines: each replica behind the offset, then how many are in sync. */
    public void logReplicas() {
        long offset = repl.offset();
        long now = System.currentTimeMillis();
        int replicas = 0;
        int lagging = 0;
        for (ReplicaLink l : repl.replicas()) {
            replicas++;
            if (l.ackOffset != offset) {
                lagging++;
                Log.warning("Lagging replica " + l.describe() + " reported offset " + (offset - l.ackOffset) + " behind master, lag="
                        + (l.online() ? (now - l.ackTime) / 1000 : 0) + ", state=" + (l.online() ? "online" : "send_bulk") + ".");
            }
        }
        if (replicas > 0) {
            Log.notice((replicas - lagging) + " of " + replicas + " replicas are in sync when shutting down.");
        }
    }
}
