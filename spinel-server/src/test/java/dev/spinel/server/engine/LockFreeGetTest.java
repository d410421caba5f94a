package dev.spinel.server.engine;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * GET reads without the stripe lock (store's OptimisticReads), yet a plain GET on another event loop never sees
 * what a transaction or a script wrote before its end: EXEC and EVAL hold the stripe, and the read is validated
 * against it.
 */
class LockFreeGetTest {
    private static final int PIPELINE = 200;

    private static String get(String key) {
        return "*2\r\n$3\r\nGET\r\n$" + key.length() + "\r\n" + key + "\r\n";
    }

    @Test
    void plainGetsNeverSeeATransactionOrScriptHalfDone() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("event-loop-threads", "2"))) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            int[] reads = new int[1];
            try (RawClient setup = new RawClient(server.port())) {
                setup.call("SET", "k", "done-0");
                setup.call("SET", "long-key-of-more-than-twenty-seven-bytes", "done-0");
            }
            Thread writer = Thread.ofPlatform().start(() -> {
                try (RawClient c = new RawClient(server.port())) {
                    for (int i = 1; !stop.get(); i++) {
                        c.call("MULTI");
                        c.call("SET", "k", "partial");
                        c.call("SET", "long-key-of-more-than-twenty-seven-bytes", "partial".repeat(10));
                        c.call("SET", "k", "done-" + i);
                        c.call("SET", "long-key-of-more-than-twenty-seven-bytes", "done-" + i);
                        c.call("EXEC");
                        c.call("EVAL", "redis.call('set', KEYS[1], 'partial'); redis.call('set', KEYS[1], ARGV[1])", "1", "k",
                                "done-" + i);
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            });
            // pipelined GETs of both keys, so that reads land inside the writer's few microseconds of EXEC
            byte[] batch = (get("k") + get("long-key-of-more-than-twenty-seven-bytes")).repeat(PIPELINE / 2)
                    .getBytes(StandardCharsets.UTF_8);
            try (RawClient c = new RawClient(server.port())) {
                long end = System.nanoTime() + 1_500_000_000L;
                while (System.nanoTime() < end) {
                    c.sendRaw(batch);
                    for (int i = 0; i < PIPELINE; i++) {
                        String v = new String(c.readReply(), StandardCharsets.UTF_8);
                        assertTrue(v.contains("done-"), "read as " + v);
                        reads[0]++;
                    }
                }
            } finally {
                stop.set(true);
                writer.join(10_000);
            }
            assertNull(failure.get(), () -> "writer failed: " + failure.get());
            assertTrue(reads[0] > 0);
            try (RawClient c = new RawClient(server.port())) {
                assertEquals("$-1\r\n", new String(c.call("GET", "absent"), StandardCharsets.UTF_8));
            }
        }
    }
}
