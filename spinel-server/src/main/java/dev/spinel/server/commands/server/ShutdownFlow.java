package dev.spinel.server.commands.server;

import dev.spinel.server.engine.Session;
import dev.spinel.server.log.Log;
import dev.spinel.server.replication.ShutdownWait;

import java.util.Locale;

/**
 * Redis 7.0's prepareForShutdown and finishShutdown, shared by SHUTDOWN and the signals (SIGTERM, SIGINT, taken
 * by the cron): the replicas' wait ({@link ShutdownWait}), the refusal while the first AOF is being written, the
 * final save, then the stop. A failure (the save, the initial AOF) without FORCE cancels the shutdown: the server
 * goes on.
 *
 * <p>Thread-safety: stateless; runs on the thread of the command, of the cron or of the replicas' wait.
 */
public final class ShutdownFlow {
    public static final int SAVE = 1;
    public static final int NOSAVE = 2;
    public static final int NOW = 4;
    public static final int FORCE = 8;

    /** What {@link #prepare} did. */
    public enum Outcome { STOPPING, WAITING, FAILED }

    private ShutdownFlow() {
    }

    /** The flags of {@code shutdown-on-sigterm} / {@code shutdown-on-sigint} ("default": none). */
    public static int flags(String words) {
        int f = 0;
        for (String w : words.trim().split("\\s+")) {
            f |= switch (w.toLowerCase(Locale.ROOT)) {
                case "save" -> SAVE;
                case "nosave" -> NOSAVE;
                case "now" -> NOW;
                case "force" -> FORCE;
                default -> 0;
            };
        }
        return f;
    }

    /**
     * prepareForShutdown: STOPPING when the server stops now, WAITING while the replicas get the time to catch up
     * ({@code s}, the client that asked, is blocked; null for a signal), FAILED when the server goes on.
     */
    public static Outcome prepare(ServerControl server, Session s, int flags) {
        if (server.engine().replicaRole().loading().any()) { // never a save of half a dataset
            flags = (flags & ~SAVE) | NOSAVE;
        }
        boolean wantsSnapshot = (flags & SAVE) != 0 || ((flags & NOSAVE) == 0 && !server.engine().config().save.points().isEmpty());
        boolean force = (flags & FORCE) != 0;
        ShutdownWait wait = server.shutdownWait();
        if (wait.remainingMillis() < 0) { // a SHUTDOWN during the wait only waits with it, as Redis
            Log.warning("User requested shutdown...");
        }
        if ((flags & NOW) == 0 && wait.await(s, () -> finish(server, wantsSnapshot, force))) {
            return Outcome.WAITING;
        }
        wait.logReplicas();
        if (!finish(server, wantsSnapshot, force)) {
            wait.cancel();
            return Outcome.FAILED;
        }
        return Outcome.STOPPING;
    }

    /** finishShutdown: the save the shutdown asks for, then the stop; false (logged) when the server goes on. */
    private static boolean finish(ServerControl server, boolean wantsSnapshot, boolean force) {
        if (server.persistence().writingInitialAof()) { // the dataset is in no file yet
            if (!force) {
                Log.warning("Writing initial AOF, can't exit.");
                return failed();
            }
            Log.warning("Writing initial AOF. Exit anyway.");
        }
        if (wantsSnapshot) {
            boolean saved;
            try {
                Log.notice("Saving the final RDB snapshot before exiting.");
                saved = server.persistence().saveForShutdown(); // bounded: a stuck command fails it, never hangs it
            } catch (IllegalStateException busy) {
                saved = false;
                Log.warning("Error trying to save the DB: " + busy.getMessage());
            }
            if (!saved && !force) {
                Log.warning("Error trying to save the DB, can't exit.");
                return failed();
            }
            if (!saved) {
                Log.warning("Error trying to save the DB. Exit anyway.");
            }
        }
        server.persistence().skipShutdownSave(); // saved (or told not to): the exit must not save again
        server.shutdownAsync();
        return true;
    }

    private static boolean failed() {
        Log.warning("Errors trying to shut down the server. Check the logs for more information.");
        return false;
    }
}
