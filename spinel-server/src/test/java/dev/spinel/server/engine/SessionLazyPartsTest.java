package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.ports.InternalConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session's outbox and cluster flags are made on first use (an idle client does not pay for them). The outbox's
 * first use may come from any thread: deliveries handed over by many threads at once, the first ones included, all
 * run exactly once on the session's own loop, through one outbox.
 */
class SessionLazyPartsTest {
    /** A connection whose tasks run on one thread of their own, as a socket connection's run on its loop. */
    private static final class LoopConnection extends InternalConnection {
        final ExecutorService loop = Executors.newSingleThreadExecutor();

        LoopConnection() {
            super("lazy-parts");
        }

        @Override
        public void execute(Runnable task) {
            loop.execute(task);
        }
    }

    @Test
    void anIdleClientsSessionHasNoOutboxAfterACommand() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0"))) {
            Session s = new Session(server.engine(), 1, new InternalConnection("idle"));
            server.engine().execute(s, Args.of("PING"));
            assertEquals("+PONG\r\n", new String(s.out().array(), 0, s.out().size(), StandardCharsets.US_ASCII));
            assertNull(s.outbox, "a PING made the outbox");
            server.engine().execute(s, Args.of("SET", "k", "v"));
            server.engine().execute(s, Args.of("GET", "k"));
            server.engine().execute(s, Args.of("PUBLISH", "ch", "m"));
            assertNull(s.cluster, "commands outside cluster mode made the cluster flags");
            assertTrue(!s.cluster().readOnly() && s.cluster() == s.cluster(), "made once, on first use");
            assertTrue(!s.drainDeliveries(), "nothing to drain");
        }
    }

    @Test
    @Timeout(60)
    void deliveriesFromManyThreadsToAFreshSessionAllRunOnceOnItsLoop() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0"))) {
            int threads = 8;
            int each = 2_000;
            for (int round = 0; round < 50; round++) {
                LoopConnection connection = new LoopConnection();
                try {
                    Session s = new Session(server.engine(), 100 + round, connection);
                    AtomicInteger ran = new AtomicInteger();
                    AtomicInteger offLoop = new AtomicInteger();
                    Thread[] loopThread = new Thread[1];
                    connection.loop.submit(() -> loopThread[0] = Thread.currentThread()).get();
                    CountDownLatch start = new CountDownLatch(1);
                    List<Thread> senders = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        senders.add(Thread.ofPlatform().start(() -> {
                            try {
                                start.await();
                            } catch (InterruptedException e) {
                                throw new IllegalStateException(e);
                            }
                            for (int i = 0; i < each; i++) {
                                s.deliver(() -> {
                                    if (Thread.currentThread() != loopThread[0]) {
                                        offLoop.incrementAndGet();
                                    }
                                    ran.incrementAndGet();
                                });
                            }
                        }));
                    }
                    start.countDown(); // every sender's first delivery races to create the outbox
                    for (Thread t : senders) {
                        t.join();
                    }
                    Outbox created = s.outbox;
                    assertSame(created, s.outbox(), "one outbox for every thread");
                    // whatever a drain task scheduled before the last deliveries did not run, the next drain runs
                    connection.loop.submit(s::drainDeliveries).get();
                    assertEquals(threads * each, ran.get(), "round " + round);
                    assertEquals(0, offLoop.get(), "a delivery ran off the session's loop");
                } finally {
                    connection.loop.shutdown();
                    assertTrue(connection.loop.awaitTermination(10, TimeUnit.SECONDS));
                }
            }
        }
    }
}
