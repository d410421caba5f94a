package dev.spinel.server.scripting;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A script is atomic against every other client on every event loop: scripts doing a read-modify-write
 * (GET, then SET of two keys, touching keys they did not declare) on several connections lose no
 * update, readers never see the two keys apart, and plain INCRs from other clients interleave only
 * between scripts (the final counts add up).
 */
class ScriptAtomicityTest {
    private static final String SCRIPT = "local a = tonumber(redis.call('get', 'a') or '0'); "
            + "redis.call('incr', 'noise'); "
            + "redis.call('set', 'a', a + 1); "
            + "for i = 1, 50 do redis.call('get', 'noise') end "
            + "redis.call('set', 'b', a + 1); return a + 1";
    private static final int SCRIPTERS = 4;
    private static final int RUNS = 300;
    private static final int INCRS = 600;

    @Test
    @Timeout(120)
    void scriptsDoNotInterleaveWithOtherClients() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("event-loop-threads", "3"))) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicInteger reads = new AtomicInteger();
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < SCRIPTERS; w++) {
                writers.add(Thread.ofPlatform().start(() -> {
                    try (RawClient c = new RawClient(server.port())) {
                        for (int n = 0; n < RUNS; n++) {
                            String r = new String(c.call("EVAL", SCRIPT, "0"), StandardCharsets.UTF_8);
                            if (!r.startsWith(":")) {
                                throw new AssertionError(r);
                            }
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
            writers.add(Thread.ofPlatform().start(() -> {
                try (RawClient c = new RawClient(server.port())) {
                    for (int n = 0; n < INCRS; n++) {
                        c.call("INCR", "noise");
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
            List<Thread> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                readers.add(Thread.ofPlatform().start(() -> {
                    try (RawClient c = new RawClient(server.port())) {
                        while (!stop.get()) {
                            String mget = new String(c.call("MGET", "a", "b"), StandardCharsets.UTF_8);
                            String[] lines = mget.split("\r\n");
                            // *2, $n, a, $n, b (or $-1 twice before the first script)
                            String a = lines[1].equals("$-1") ? "nil" : lines[2];
                            String b = lines[lines.length - 1].equals("$-1") ? "nil" : lines[lines.length - 1];
                            if (!a.equals(b)) {
                                throw new AssertionError("saw a script half done: " + mget);
                            }
                            reads.incrementAndGet();
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
            for (Thread t : writers) {
                t.join();
            }
            stop.set(true);
            for (Thread t : readers) {
                t.join();
            }
            assertNull(failure.get());
            try (RawClient c = new RawClient(server.port())) {
                String total = Integer.toString(SCRIPTERS * RUNS);
                assertEquals("$" + total.length() + "\r\n" + total + "\r\n", c.callString("GET", "a"));
                assertEquals("$" + total.length() + "\r\n" + total + "\r\n", c.callString("GET", "b"));
                assertEquals(":" + (SCRIPTERS * RUNS + INCRS + 1) + "\r\n", c.callString("INCR", "noise"));
            }
            assertTrue(reads.get() > 0);
        }
    }
}
