package dev.spinel.server.testing;

import dev.spinel.server.SpinelServer;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;

/**
 * Holds the event loop of one client of an in-process server for a while, leaving the other loops free: what a long
 * command on that loop does to the clients sharing it. (DEBUG SLEEP holds every loop, as Redis's sleep does.)
 */
public final class LoopHolder {
    private LoopHolder() {
    }

    /** Holds {@code client}'s loop for {@code millis}; returns once the hold runs, with a latch counted down at its end. */
    public static CountDownLatch hold(SpinelServer server, RawClient client, long millis) throws Exception {
        long id = Long.parseLong(client.callString("CLIENT", "ID").trim().substring(1));
        Executor loop = (Executor) server.engine().clients().get(id).connection().loop();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        loop.execute(() -> {
            started.countDown();
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                done.countDown();
            }
        });
        started.await();
        return done;
    }
}
