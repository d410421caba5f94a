package dev.spinel.server.commands.server;

import dev.spinel.server.log.Log;

import java.io.IOException;
import java.math.BigDecimal;

/**
 * DEBUG SLEEP in cluster mode. Redis's sleeps on its only thread: the whole server stops answering, its cluster bus
 * too, so the others see it fail and fail it over (legacy cluster test 10-manual-failover sends DEBUG SLEEP 10 to a
 * primary and expects its replica to take over within 5 s). Holding the event loops (standalone mode's DEBUG SLEEP)
 * leaves the Raft server answering: the node would never look down. So the whole process is stopped: a helper process
 * sends it SIGSTOP, sleeps, and sends SIGCONT (one helper, so the continue cannot come before the stop), and the
 * cluster code sees what it sees of a stopped node (the Raft leader's silence, the node's own fencing on waking:
 * docs/cluster.md "Fencing").
 *
 * <p>Thread-safety: stateless.
 */
final class DebugSleep {
    private DebugSleep() {
    }

    /**
     * Stops this process for {@code micros}; false when no helper could be run (the caller then sleeps as in
     * standalone mode).
     */
    static boolean stopProcess(long micros) {
        long pid = ProcessHandle.current().pid();
        String seconds = BigDecimal.valueOf(micros, 6).toPlainString();
        try {
            Process helper = new ProcessBuilder("/bin/sh", "-c",
                    "kill -STOP " + pid + "; sleep " + seconds + "; kill -CONT " + pid)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return helper.waitFor() == 0; // this thread is stopped meanwhile, with every other
        } catch (IOException e) {
            Log.warning("DEBUG SLEEP: could not stop the process (" + e.getMessage() + "), sleeping on the event loops");
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }
}
