package dev.spinel.server.durability;

import dev.spinel.server.log.Log;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * The process that stands for Redis's fork child while a background save or AOF rewrite runs on a thread of
 * Spinel. It is a child of the server's process for exactly as long as the job runs ({@code pgrep -P <server>},
 * {@code ps --ppid} find it, as they find Redis's child), and a signal that kills it stops the job as it stops
 * Redis's: the job fails and its log line says "terminated by signal N". Operators (and Redis's own tests) abort a
 * save that way. The process is {@code cat} reading a pipe from the server, so it also exits when the server
 * dies, and it does nothing else. If it cannot be started, the job runs without it (logged).
 *
 * <p>Thread-safety: {@link #end} may be called from any thread, once the job is over; the kill callback runs on
 * the JVM's process reaper thread and must not block.
 */
final class BackgroundChild {
    private final Process process;
    private volatile boolean ended;

    private BackgroundChild(Process process) {
        this.process = process;
    }

    /**
     * Starts the stand-in of a job; {@code killed} gets the signal number if something other than {@link #end}
     * ends it. Returns null (the job runs without one) when no process can be started.
     */
    static BackgroundChild start(IntConsumer killed) {
        Process p;
        try {
            p = new ProcessBuilder("cat").redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException | RuntimeException e) {
            Log.verbose("No child process for the background job: " + e.getMessage());
            return null;
        }
        BackgroundChild child = new BackgroundChild(p);
        p.onExit().thenRun(() -> {
            if (!child.ended) {
                int status = p.exitValue();
                // the JVM reports a death by signal N as 128 + N
                killed.accept(status > 128 ? status - 128 : 0);
            }
        });
        return child;
    }

    long pid() {
        return process.pid();
    }

    /** The job is over: the process exits and is reaped before this returns (a later pgrep does not see it). */
    void end() {
        ended = true;
        try {
            process.getOutputStream().close(); // cat exits at the end of its input
        } catch (IOException e) {
            process.destroy();
        }
        try {
            if (!process.waitFor(1, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(1, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
