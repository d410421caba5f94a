package dev.spinel.server.net;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * DEBUG SLEEP's hold of the whole server: Redis sleeps on its one thread, so no client is answered meanwhile (Redis's
 * suite relies on it, e.g. unit/dump's "MIGRATE timeout actually works" makes the target unresponsive that way).
 * Every event loop but the caller's runs a task that waits until the hold is released (or {@code maxMillis} passed:
 * a hold is never left behind). The caller's loop sleeps itself.
 *
 * <p>Thread-safety: {@link #holdOthers} may be called from any thread; two holds at once each wait for the other's
 * loop a bounded time only, so neither deadlocks.
 */
public final class LoopHold {
    /** How long {@link #holdOthers} waits for the other loops to be held before the caller sleeps. */
    private static final long START_WAIT_MILLIS = 1_000;

    private LoopHold() {
    }

    /**
     * Holds every loop of {@code loops} but {@code callerLoop} (null: every loop), returning once they are held (or
     * after a bounded wait); the returned action releases them.
     */
    public static Runnable holdOthers(EventLoopGroup loops, Object callerLoop, long maxMillis) {
        CountDownLatch release = new CountDownLatch(1);
        int others = 0;
        for (EventExecutor loop : loops) {
            if (!isCallers(loop, callerLoop)) {
                others++;
            }
        }
        CountDownLatch held = new CountDownLatch(others);
        for (EventExecutor loop : loops) {
            if (isCallers(loop, callerLoop)) {
                continue;
            }
            loop.execute(() -> {
                held.countDown();
                try {
                    release.await(maxMillis, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        try {
            held.await(START_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return release::countDown;
    }

    /** The caller's own loop: named by its connection, or the thread we run on (a front end without connections). */
    private static boolean isCallers(EventExecutor loop, Object callerLoop) {
        return loop == callerLoop || loop.inEventLoop();
    }
}
