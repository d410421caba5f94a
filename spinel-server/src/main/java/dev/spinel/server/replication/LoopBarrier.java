package dev.spinel.server.replication;

import dev.spinel.server.log.Log;
import io.netty.util.concurrent.EventExecutor;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The barrier {@link Replication} raises when it starts feeding a stream: every other event loop finishes
 * the task it was running before the snapshot is armed.
 *
 * <p>Thread-safety: the threads are set once at start-up (a volatile field); {@link #quiesce} runs on any
 * thread, and skips the caller's own loop.
 */
final class LoopBarrier {
    /** The threads that run commands (the event loops); null in embedded uses. */
    private volatile Iterable<? extends Executor> commandThreads;

    void threads(Iterable<? extends Executor> loops) {
        this.commandThreads = loops;
    }

    /**
     * After installing the propagator: waits until every other event loop has finished the task it was
     * running, so no write that saw "no propagator" (and so neither locks for the log nor feeds the stream)
     * is still in flight when the snapshot is armed. Bounded (a loop busy for long is not waited for past
     * a second); the caller's own loop is running this very command.
     */
    void quiesce() {
        Iterable<? extends Executor> loops = commandThreads;
        if (loops == null) {
            return;
        }
        for (Executor e : loops) {
            if (e instanceof EventExecutor ee && ee.inEventLoop()) {
                continue;
            }
            FutureTask<Void> done = new FutureTask<>(() -> { }, null);
            try {
                e.execute(done);
                done.get(1, TimeUnit.SECONDS);
            } catch (TimeoutException | ExecutionException | RejectedExecutionException ex) {
                Log.warning("Replication: an event loop did not answer the attach barrier in time: " + ex);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
