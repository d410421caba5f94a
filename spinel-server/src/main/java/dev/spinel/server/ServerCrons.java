package dev.spinel.server;

import dev.spinel.server.log.Log;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The server's periodic work (Redis's serverCron and what it calls: active expiry, client timeouts, the
 * stats' samples, the persistence and replication crons, MIGRATE's idle sockets) on one timer thread of its
 * own, never on an event loop. A loop that holds a scheduled task reads the clock on every turn (to know
 * whether the task is due and how long {@code epoll_wait} may sleep); with none it reads it only when a
 * command needs the time, which unpipelined is a large share of the clock reads per request.
 *
 * <p>Every task here already touches shared state only through thread-safe APIs (segment locks, the
 * client registry, channels' own executors), as it did from an event loop that owned only some of the
 * clients. The tasks run one at a time on the timer thread, so a slow one delays the others (as in Redis,
 * whose serverCron runs them in turn).
 *
 * <p>Thread-safety: {@link #start}, {@link #rescheduleServerCron} and {@link #close} may be called from any
 * thread; the server cron's future is swapped under this object's monitor.
 */
final class ServerCrons implements AutoCloseable {
    private final ScheduledThreadPoolExecutor timer;
    private final Runnable serverCron;
    private final LongSupplier hz;
    private ScheduledFuture<?> serverCronFuture;

    /**
     * @param serverCron Redis's serverCron proper, run {@code hz} times a second
     * @param hz         the configured hz, read again by {@link #rescheduleServerCron}
     */
    ServerCrons(Runnable serverCron, LongSupplier hz) {
        this.serverCron = serverCron;
        this.hz = hz;
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "spinel-cron");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** Starts the server cron at hz and the other periodic tasks at their fixed periods. */
    synchronized void start(Runnable persistenceCron, Runnable replicationCron, Runnable migrateIdle) {
        serverCronFuture = every(serverCron, periodMillis());
        every(persistenceCron, 100);
        every(replicationCron, 1000);
        every(migrateIdle, 1000); // Redis's serverCron closes MIGRATE's idle connections once a second
    }

    /** CONFIG SET hz: the server cron at its new rate (the old one stops after a tick in progress). */
    synchronized void rescheduleServerCron() {
        ScheduledFuture<?> old = serverCronFuture;
        serverCronFuture = every(serverCron, periodMillis());
        if (old != null) {
            old.cancel(false);
        }
    }

    private long periodMillis() {
        return Math.max(2, 1000 / Math.max(1, Math.min(500, hz.getAsLong())));
    }

    /** Runs {@code task} every {@code periodMs}; a task that throws is logged and runs again next time. */
    private ScheduledFuture<?> every(Runnable task, long periodMs) {
        return timer.scheduleAtFixedRate(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                Log.warning("cron: " + e);
            }
        }, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Stops every task; one running finishes on its own, not waited for (as the loops' crons were not) and
     * not interrupted (an interrupt would close a file channel a persistence task is writing).
     */
    @Override
    public void close() {
        timer.shutdown();
    }
}
