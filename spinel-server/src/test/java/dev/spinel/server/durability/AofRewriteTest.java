package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisCheckAof;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** BGREWRITEAOF: with writers running the new base plus the new incremental file replay to the same state. */
class AofRewriteTest {
    @TempDir
    Path dir;

    private SpinelServer start(boolean aof) {
        return SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", aof ? "yes" : "no").with("appendfsync", "everysec"));
    }

    static String state(RawClient c, int writers, int keys) throws Exception {
        StringBuilder sb = new StringBuilder(c.callString("DBSIZE"));
        for (int w = 0; w < writers; w++) {
            for (int k = 0; k < keys; k++) {
                sb.append(c.callString("GET", "w" + w + ":" + k)).append(c.callString("PEXPIRETIME", "w" + w + ":" + k));
            }
        }
        return sb.toString();
    }

    private static void awaitRewrite(SpinelServer s) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 20_000;
        while (System.currentTimeMillis() < deadline) {
            StringBuilder info = new StringBuilder();
            s.persistence().appendInfo(info);
            if (info.toString().contains("aof_rewrite_in_progress:0")) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("rewrite did not finish");
    }

    @Test
    @Timeout(60)
    void rewriteUnderConcurrentWritesKeepsTheState() throws Exception {
        int writers = 3;
        int keys = 50;
        String expected;
        try (SpinelServer s = start(true)) {
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int id = w;
                Thread t = new Thread(() -> {
                    try (RawClient c = new RawClient(s.port())) {
                        for (long n = 0; !stop.get(); n++) {
                            String k = "w" + id + ":" + (n % keys);
                            c.call("SET", k, Long.toString(n), "PX", Long.toString(1_000_000 + n));
                            if (n % 7 == 0) {
                                c.call("DEL", "w" + id + ":" + ((n * 3) % keys));
                            }
                        }
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
                t.start();
                threads.add(t);
            }
            try (RawClient c = new RawClient(s.port())) {
                Thread.sleep(200);
                assertEquals("+Background append only file rewriting started\r\n", c.callString("BGREWRITEAOF"));
                awaitRewrite(s);
                Thread.sleep(200);
                assertEquals("+Background append only file rewriting started\r\n", c.callString("BGREWRITEAOF"));
                awaitRewrite(s);
                Thread.sleep(100);
                stop.set(true);
                for (Thread t : threads) {
                    t.join();
                }
                expected = state(c, writers, keys);
            }
        }
        Path aofDir = dir.resolve("appendonlydir");
        assertEquals("file appendonly.aof.3.base.rdb seq 3 type b\nfile appendonly.aof.3.incr.aof seq 3 type i\n",
                Files.readString(aofDir.resolve("appendonly.aof.manifest")));
        try (var files = Files.list(aofDir)) {
            assertEquals(3, files.count(), "old base and incr files deleted");
        }
        try (SpinelServer s = start(true); RawClient c = new RawClient(s.port())) {
            assertEquals(expected, state(c, writers, keys));
        }
        RedisCheckAof.assertValid(aofDir);
        try (RedisServerProcess redis = RedisServerProcess.start("--dir", dir.toString(), "--appendonly", "yes");
             RawClient c = new RawClient(redis.port())) {
            awaitLoaded(c);
            assertEquals(expected, state(c, writers, keys));
        }
    }

    @Test
    @Timeout(60)
    void theLogIsRewrittenWhenItDoublesPastTheMinimumSize() throws Exception {
        Path manifest = dir.resolve("appendonlydir").resolve("appendonly.aof.manifest");
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", "yes").with("auto-aof-rewrite-min-size", "20000").with("auto-aof-rewrite-percentage", "100"));
             RawClient c = new RawClient(s.port())) {
            for (int i = 0; i < 100; i++) {
                c.call("SET", "same-key", "x".repeat(100)); // ~13 kB of log, below the minimum
            }
            Thread.sleep(300);
            assertTrue(Files.readString(manifest).contains("seq 1 type b"), "below the minimum size: no rewrite");
            for (int i = 0; i < 200; i++) {
                c.call("SET", "same-key", "x".repeat(100));
            }
            long deadline = System.currentTimeMillis() + 20_000;
            while (!Files.readString(manifest).contains("seq 2 type b") && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertEquals("file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n",
                    Files.readString(manifest));
            awaitRewrite(s);
            assertEquals("$100\r\n" + "x".repeat(100) + "\r\n", c.callString("GET", "same-key"));
        }
    }

    @Test
    @Timeout(60)
    void turningTheLogOnAtRunTimeStartsFromMemory() throws Exception {
        try (SpinelServer s = start(false); RawClient c = new RawClient(s.port())) {
            c.call("SET", "before", "1");
            s.config().with("appendonly", "yes"); // what CONFIG SET appendonly yes does
            c.call("SET", "after", "2");
            awaitRewrite(s);
            c.call("SET", "later", "3");
            StringBuilder info = new StringBuilder();
            s.persistence().appendInfo(info);
            assertTrue(info.toString().contains("aof_enabled:1\r\n"), info.toString());
        }
        assertEquals("file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
                Files.readString(dir.resolve("appendonlydir").resolve("appendonly.aof.manifest")));
        try (SpinelServer s = start(true); RawClient c = new RawClient(s.port())) {
            assertEquals(":3\r\n", c.callString("DBSIZE"));
            s.config().with("appendonly", "no");
            c.call("SET", "unlogged", "4");
        }
        try (SpinelServer s = start(true); RawClient c = new RawClient(s.port())) {
            assertEquals(":3\r\n", c.callString("DBSIZE"));
        }
    }

    @Test
    void rewriteWithTheLogOffWritesABaseOnly() throws Exception {
        try (SpinelServer s = start(false); RawClient c = new RawClient(s.port())) {
            c.call("SET", "k", "v");
            assertEquals("+Background append only file rewriting started\r\n", c.callString("BGREWRITEAOF"));
            awaitRewrite(s);
            assertEquals("-ERR wrong number of arguments for 'bgrewriteaof' command\r\n", c.callString("BGREWRITEAOF", "x"));
        }
        assertEquals("file appendonly.aof.1.base.rdb seq 1 type b\n",
                Files.readString(dir.resolve("appendonlydir").resolve("appendonly.aof.manifest")));
        try (SpinelServer s = start(true); RawClient c = new RawClient(s.port())) {
            assertEquals("$1\r\nv\r\n", c.callString("GET", "k"));
        }
    }

    /** Waits until a just-started redis-server has loaded its files (it answers -LOADING until then). */
    static void awaitLoaded(RawClient c) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (new String(c.call("DBSIZE"), StandardCharsets.ISO_8859_1).startsWith("-LOADING") && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
    }
}
