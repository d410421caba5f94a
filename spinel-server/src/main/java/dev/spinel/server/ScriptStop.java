package dev.spinel.server;

import dev.spinel.server.scripting.Scripting;

/**
 * SIGTERM's stop of a running script (see {@link SpinelServer#terminate}): one that has not written is killed, as
 * SCRIPT KILL would; one that has written is waited for a bounded time.
 *
 * <p>Thread-safety: stateless; runs on the signal's thread.
 */
final class ScriptStop {
    /** How long SIGTERM waits for a running script to stop (or end) before leaving it. */
    private static final long WAIT_NANOS = 5_000_000_000L;

    private ScriptStop() {
    }

    /** Kills the running script if it has not written; true once no script runs (within a bounded wait). */
    static boolean stop(Scripting scripting) {
        long giveUp = System.nanoTime() + WAIT_NANOS;
        while (scripting.running()) {
            if (System.nanoTime() - giveUp > 0) {
                return false;
            }
            if (!scripting.wroteSinceStart()) {
                scripting.kill(scripting.functionRunning());
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
