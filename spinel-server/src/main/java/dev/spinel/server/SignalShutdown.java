package dev.spinel.server;

import dev.spinel.server.commands.server.ShutdownFlow;
import dev.spinel.server.log.Log;
import dev.spinel.server.replication.ShutdownWait;
import sun.misc.Signal;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * SIGTERM and SIGINT as Redis 7.0 handles them, instead of the JVM's shutdown hook (which nothing can cancel):
 * the handler only logs and records the signal ({@link ShutdownWait#signalled}); the server cron takes it
 * ({@link #tick}) and runs the shutdown with the flags of {@code shutdown-on-sigterm} / {@code shutdown-on-sigint},
 * so {@code SHUTDOWN ABORT} or a failed final save cancels it and the server goes on. A second SIGINT while one is
 * pending exits at once (status 1), as Redis's "You insist". Beyond Redis, a running script does not defer the
 * shutdown: one that has not written is killed, one that has is left behind without the final RDB snapshot
 * ({@link ScriptStop}); and when the cron does not take the signal within {@link #WATCHDOG_MILLIS} (a stuck cron),
 * the old bounded path ({@link SpinelServer#terminate}) stops the server anyway, the AOF flushed first.
 *
 * <p>Thread-safety: {@link #handle} runs on the JVM's signal thread, {@link #tick} on the cron thread, the watchdog
 * on a thread of its own; they share only volatile fields and {@link ShutdownWait}'s synchronized state.
 */
final class SignalShutdown {
    static final long WATCHDOG_MILLIS = 5_000;
    private final SpinelServer server;
    private final ShutdownWait wait;
    /** The cron took the signal and the server stops: no second run of the shutdown meanwhile. */
    private volatile boolean stopping;
    /** When the pending signal came (System.nanoTime()), for the watchdog. */
    private volatile long signalledAt;
    private Thread watchdog;

    SignalShutdown(SpinelServer server) {
        this.server = server;
        this.wait = server.shutdownWait();
    }

    /** Installs the handlers of SIGTERM and SIGINT (the process's, so only the launcher calls this). */
    void install() {
        for (String name : new String[] {"TERM", "INT"}) {
            Signal sig = new Signal(name);
            if (!IgnoredSignals.restoreIfIgnored(sig.getNumber())) {
                Log.warning("SIG" + name + " was ignored when the server started and could not be restored: it stays ignored");
            }
            Signal.handle(sig, this::handle);
        }
        CrashReport.install();
    }

    /** Redis's sigShutdownHandler. */
    void handle(Signal sig) {
        boolean interrupt = sig.getName().equals("INT");
        if (interrupt && wait.pendingSignal() != 0) {
            Log.fromSignalHandler("You insist... exiting now.");
            removeTempRdbFiles();
            Runtime.getRuntime().halt(1); // not a clean shutdown: no hook, no save
        }
        if (server.engine().replicaRole().loading().any()) {
            // No cron runs during the start-up load (Redis's whileBlockedCron stops it at once, without saving)
            Log.fromSignalHandler("Received shutdown signal during loading, scheduling shutdown.");
            ShutdownFlow.prepare(server, null, ShutdownFlow.NOSAVE);
            return;
        }
        signalledAt = System.nanoTime();
        wait.signalled(sig.getNumber()); // first: the JVM runs this handler late already (a thread started per signal)
        Log.fromSignalHandler("Received SIG" + sig.getName() + " scheduling shutdown...");
        startWatchdog();
    }

    /** The cron's part (Redis's serverCron): runs the shutdown a signal asked for, unless one is already under way. */
    void tick() {
        int sig = wait.pendingSignal();
        if (sig == 0 || stopping || wait.initiated() || server.isClosed()) {
            return;
        }
        String param = sig == new Signal("INT").getNumber() ? "shutdown-on-sigint" : "shutdown-on-sigterm";
        int flags = ShutdownFlow.flags(server.config().param(param).get());
        if (server.scripting().running() && !ScriptStop.stop(server.scripting())) {
            Log.warning("A script that wrote is still running: exiting without the final RDB snapshot,"
                    + " which would hold part of its writes");
            flags = (flags & ~ShutdownFlow.SAVE) | ShutdownFlow.NOSAVE | ShutdownFlow.FORCE;
        }
        stopping = true;
        if (ShutdownFlow.prepare(server, null, flags) == ShutdownFlow.Outcome.FAILED) {
            stopping = false; // cancelled (logged): the server goes on, a next signal starts again
        }
    }

    private synchronized void startWatchdog() {
        if (watchdog != null) {
            return;
        }
        watchdog = new Thread(this::watch, "spinel-signal-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    /** The last resort: a signal the cron has not taken within WATCHDOG_MILLIS (stuck, or held by DEBUG PAUSE-CRON). */
    private void watch() {
        while (true) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
            synchronized (this) {
                if (wait.pendingSignal() == 0 || stopping || wait.initiated() || server.isClosed()) {
                    watchdog = null; // taken, aborted or over: a next signal starts another
                    return;
                }
            }
            if (System.nanoTime() - signalledAt > WATCHDOG_MILLIS * 1_000_000) { // DEBUG PAUSE-CRON too: it always stops
                Log.warning("The shutdown asked by a signal did not start within " + WATCHDOG_MILLIS / 1000
                        + " seconds: stopping now");
                server.terminate();
                System.exit(0);
            }
        }
    }

    /** The snapshot files a save of this process is writing (RdbFiles's temp-<pid>[-<n>].rdb), as Redis's rdbRemoveTempFile. */
    private void removeTempRdbFiles() {
        Path dir = server.persistence().rdbPath().toAbsolutePath().getParent();
        try (DirectoryStream<Path> temps = Files.newDirectoryStream(dir, "temp-" + ProcessHandle.current().pid() + "{.rdb,-*.rdb}")) {
            for (Path p : temps) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // exiting anyway: a leftover temp file is harmless (never loaded)
        }
    }
}
