package dev.spinel.server.engine.clients;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.ports.ClientConnection;
import dev.spinel.store.Keyspace;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * CLIENT PAUSE state, as Redis 7.0: a pause type (WRITE delays commands that write or may
 * replicate; ALL delays every command, CLIENT UNPAUSE included) and an end time. A new pause keeps
 * the stronger type and the later end of the current one. A delayed client is not rejected: the
 * engine suspends its connection with the command to retry ({@link ClientConnection#suspend}) and
 * registers it here; it resumes at the end time (a timer on its own event loop) or on UNPAUSE,
 * in the order clients were postponed. While a pause lasts (either type), expired keys are not deleted, by
 * lazy or active expiry (Redis 7.0's PAUSE_ACTION_EXPIRE): they read as absent and go once it ends.
 *
 * <p>Thread-safety: the state is two volatile fields; the hot path reads one of them
 * ({@link #active}). Changes and the set of postponed sessions are guarded by this object's lock.
 */
public final class ClientPause {
    public static final int OFF = 0;
    public static final int WRITE = 1;
    public static final int ALL = 2;

    private volatile int type = OFF;
    private volatile long endMillis;
    private final Set<Client> postponed = new LinkedHashSet<>();
    /** Other front ends' requests held (gRPC writes, {@code EmbeddedClient}): each retries itself when run. */
    private final List<Runnable> waiters = new ArrayList<>();
    private final Keyspace keyspace;

    public ClientPause(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    /** True when a pause may be in effect (cheap check for the dispatcher). */
    public boolean active() {
        return type != OFF;
    }

    /** True if a command with these properties must wait now; ends an expired pause. */
    public boolean mustWait(boolean writes, long now) {
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
        keyspace.suspendExpiryDeletes(endMillis);
    }

    /** CLIENT UNPAUSE (or the end time passed): resumes every postponed client on its own loop. */
    public void unpause() {
        List<Client> wake;
        List<Runnable> retries;
        synchronized (this) {
            type = OFF;
            keyspace.suspendExpiryDeletes(0);
            wake = new ArrayList<>(postponed);
            postponed.clear();
            retries = waiters.isEmpty() ? List.of() : new ArrayList<>(waiters);
            waiters.clear();
        }
        for (Client s : wake) {
            s.connection().resume();
        }
        for (Runnable r : retries) {
            r.run();
        }
    }

    /** True when a request that writes (or any, {@code writes} false) must wait for the pause to end now. */
    public boolean holds(boolean writes, long now) {
        return active() && mustWait(writes, now);
    }

    /**
     * Runs {@code retry} once the pause ends (UNPAUSE, or its end time, checked on {@code timer}), or at once
     * if it already ended. For requests of other front ends, which wait without a connection to suspend;
     * {@code retry} must be quick (it hands the request back to its own thread).
     */
    public void whenEnded(Runnable retry, ScheduledExecutorService timer) {
        long now = System.currentTimeMillis();
        synchronized (this) {
            if (type != OFF && endMillis > now) {
                waiters.add(retry);
                timer.schedule(() -> recheckWaiters(timer), endMillis - now, TimeUnit.MILLISECONDS);
                return;
            }
        }
        retry.run();
    }

    private void recheckWaiters(ScheduledExecutorService timer) {
        long now = System.currentTimeMillis();
        synchronized (this) {
            if (waiters.isEmpty()) {
                return;
            }
            if (type != OFF && endMillis > now) {
                timer.schedule(() -> recheckWaiters(timer), endMillis - now, TimeUnit.MILLISECONDS);
                return;
            }
        }
        unpause();
    }

    /** Clients waiting for the pause to end (Redis counts them in blocked_clients, as BLOCKED_POSTPONE). */
    public synchronized int postponedCount() {
        return postponed.size();
    }

    public long endMillis() {
        return endMillis;
    }

    /** Suspends {@code session}, to run {@code retry} again when the pause ends. Event loop of the session. */
    public void postpone(Client session, Args retry, long now) {
        ClientConnection c = session.connection();
        c.suspend(retry);
        synchronized (this) {
            if (type != OFF) {
                postponed.add(session);
                c.schedule(() -> recheck(session), Math.max(1, endMillis - now));
                return;
            }
        }
        c.resume(); // UNPAUSE on another loop came between the check and here
    }

    /** Timer on the session's loop: resume if the pause ended, else wait for the (extended) end. */
    private void recheck(Client session) {
        long now = System.currentTimeMillis();
        synchronized (this) {
            if (!postponed.contains(session)) {
                return; // already resumed by UNPAUSE
            }
            if (type != OFF && endMillis > now) {
                session.connection().schedule(() -> recheck(session), endMillis - now);
                return;
            }
        }
        unpause();
    }
}
