package dev.spinel.server.engine;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * EXEC is atomic against every other client on every event loop: concurrent optimistic transfers
 * between accounts (WATCH, read, MULTI, two SETs, EXEC, retry on abort) must keep the total constant,
 * and concurrent readers reading all accounts inside MULTI must never see a transfer half done.
 */
class TransactionAtomicityTest {
    private static final int ACCOUNTS = 4;
    private static final int START = 1000;

    @Test
    void transfersKeepTheSumAndReadersNeverSeeHalfATransfer() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("event-loop-threads", "2"))) {
            try (RawClient setup = new RawClient(server.port())) {
                for (int i = 0; i < ACCOUNTS; i++) {
                    setup.call("SET", "acct:" + i, Integer.toString(START));
                }
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicInteger committed = new AtomicInteger();
            AtomicInteger aborted = new AtomicInteger();
            AtomicInteger reads = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < 6; w++) {
                int seed = w;
                threads.add(Thread.ofPlatform().start(() -> {
                    Random rnd = new Random(seed);
                    try (RawClient c = new RawClient(server.port())) {
                        for (int n = 0; n < 300; n++) {
                            int from = rnd.nextInt(ACCOUNTS);
                            int to = (from + 1 + rnd.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                            while (true) {
                                c.call("WATCH", "acct:" + from, "acct:" + to);
                                int a = value(c.call("GET", "acct:" + from));
                                int b = value(c.call("GET", "acct:" + to));
                                c.call("MULTI");
                                c.call("SET", "acct:" + from, Integer.toString(a - 1));
                                c.call("SET", "acct:" + to, Integer.toString(b + 1));
                                String r = new String(c.call("EXEC"), StandardCharsets.UTF_8);
                                if (r.startsWith("*2")) {
                                    committed.incrementAndGet();
                                    break;
                                }
                                assertEquals("*-1\r\n", r);
                                aborted.incrementAndGet();
                            }
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
            for (int r = 0; r < 2; r++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    try (RawClient c = new RawClient(server.port())) {
                        while (!stop.get()) {
                            c.call("MULTI");
                            for (int i = 0; i < ACCOUNTS; i++) {
                                c.call("GET", "acct:" + i);
                            }
                            String exec = new String(c.call("EXEC"), StandardCharsets.UTF_8);
                            int sum = 0;
                            for (String line : exec.split("\r\n")) {
                                if (!line.startsWith("*") && !line.startsWith("$")) {
                                    sum += Integer.parseInt(line);
                                }
                            }
                            assertEquals(ACCOUNTS * START, sum, "a reader saw a transfer half done: " + exec);
                            reads.incrementAndGet();
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
            for (int i = 0; i < 6; i++) {
                threads.get(i).join();
            }
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
            assertNull(failure.get(), () -> "failure: " + failure.get());
            assertEquals(6 * 300, committed.get());
            assertTrue(reads.get() > 0);
            try (RawClient c = new RawClient(server.port())) {
                int sum = 0;
                for (int i = 0; i < ACCOUNTS; i++) {
                    sum += value(c.call("GET", "acct:" + i));
                }
                assertEquals(ACCOUNTS * START, sum);
            }
        }
    }

    private static int value(byte[] bulk) {
        String s = new String(bulk, StandardCharsets.UTF_8);
        return Integer.parseInt(s.substring(s.indexOf("\r\n") + 2, s.length() - 2));
    }
}
