package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisCheckAof;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The append-only log: Redis 7.0's multi-part layout that redis-check-aof accepts and redis-server
 * loads, deterministic rewrites (relative expiries logged as absolute times), MULTI/EXEC blocks,
 * recovery at start-up, a torn tail cut with a log line and a corrupt middle refused.
 */
class AofTest {
    @TempDir
    Path dir;

    private SpinelServer start(String fsync) {
        return SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", "yes").with("appendfsync", fsync));
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static void writes(RawClient c) throws Exception {
        c.call("SET", "plain", "v1");
        c.call("SET", "withex", "v2", "EX", "1000");
        c.call("SET", "withpx", "v3", "PX", "2000000", "GET");
        c.call(List.of(b("SET"), b("bin\r\n\u0000key"), b("\u0000\u00ff value")));
        c.call("SET", "counter", "10");
        c.call("SET", "gone", "x");
        c.call("EXPIRE", "gone", "-1");
        c.call("SET", "ttl", "t");
        c.call("EXPIRE", "ttl", "5000");
        c.call("PEXPIRE", "plain", "9000000");
        c.call("PERSIST", "plain");
        c.call("SELECT", "3");
        c.call("SET", "in3", "three");
        c.call("MULTI");
        c.call("SET", "tx1", "a", "EX", "100");
        c.call("SET", "tx2", "b");
        c.call("SELECT", "4");
        c.call("SET", "in4", "four");
        c.call("EXEC");
        c.call("SELECT", "0");
        c.call("RESTORE", "restored", "100000", "\u0000\u0005hello\n\u0000\u0081\u00a5\u00e4\u00ed\u00c2\u00c9\u0093\u00ba");
        c.call("DEL", "counter");
        c.call("SET", "nx", "1", "NX");
        c.call("SET", "nx", "2", "NX");
    }

    private static final String[][] KEYS = {{"0", "plain"}, {"0", "withex"}, {"0", "withpx"}, {"0", "bin\r\n\u0000key"},
            {"0", "counter"}, {"0", "gone"}, {"0", "ttl"}, {"3", "in3"}, {"3", "tx1"}, {"3", "tx2"}, {"4", "in4"},
            {"0", "restored"}, {"0", "nx"}};

    static String state(RawClient c) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (String[] k : KEYS) {
            c.call("SELECT", k[0]);
            sb.append(k[0]).append(' ').append(k[1]).append(" = ")
                    .append(new String(c.call(List.of(b("GET"), b(k[1]))), StandardCharsets.ISO_8859_1))
                    .append(new String(c.call(List.of(b("PEXPIRETIME"), b(k[1]))), StandardCharsets.ISO_8859_1));
        }
        for (int db = 0; db < 16; db++) {
            c.call("SELECT", Integer.toString(db));
            sb.append(db).append(':').append(new String(c.call("DBSIZE"), StandardCharsets.ISO_8859_1));
        }
        c.call("SELECT", "0");
        return sb.toString();
    }

    @Test
    void redisChecksAndLoadsTheLogAndSpinelRecoversIt() throws Exception {
        String expected;
        try (SpinelServer s = start("always"); RawClient c = new RawClient(s.port())) {
            writes(c);
            expected = state(c);
        }
        Path aofDir = dir.resolve("appendonlydir");
        assertEquals("file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
                Files.readString(aofDir.resolve("appendonly.aof.manifest")));
        String log = Files.readString(aofDir.resolve("appendonly.aof.1.incr.aof"), StandardCharsets.ISO_8859_1);
        assertTrue(log.contains("$4\r\nPXAT\r\n"), log);
        assertTrue(!log.contains("$2\r\nEX\r\n") && !log.contains("$6\r\nEXPIRE\r\n"), log);
        assertTrue(log.contains("MULTI") && log.contains("EXEC"), log);

        RedisCheckAof.assertValid(aofDir);

        try (RedisServerProcess redis = RedisServerProcess.start("--dir", dir.toString(), "--appendonly", "yes");
             RawClient c = new RawClient(redis.port())) {
            awaitLoaded(c);
            assertEquals(expected, state(c));
        }
        try (SpinelServer s = start("everysec"); RawClient c = new RawClient(s.port())) {
            assertEquals(expected, state(c));
            c.call("SET", "after", "restart");
        }
        try (SpinelServer s = start("no"); RawClient c = new RawClient(s.port())) {
            assertEquals("$7\r\nrestart\r\n", c.callString("GET", "after"));
        }
    }

    @Test
    void aTornTailIsCutAndACorruptMiddleIsRefused() throws Exception {
        try (SpinelServer s = start("always"); RawClient c = new RawClient(s.port())) {
            c.call("SET", "a", "1");
            c.call("SET", "b", "2");
        }
        Path incr = dir.resolve("appendonlydir").resolve("appendonly.aof.1.incr.aof");
        long good = Files.size(incr);
        Files.write(incr, b("*3\r\n$3\r\nSET\r\n$1\r\nc\r\n$1"), StandardOpenOption.APPEND);
        try (SpinelServer s = start("always"); RawClient c = new RawClient(s.port())) {
            assertEquals(":2\r\n", c.callString("DBSIZE"));
        }
        assertEquals(good, Files.size(incr), "torn tail truncated");

        byte[] bytes = Files.readAllBytes(incr);
        bytes[bytes.length / 2] = '!';
        Files.write(incr, bytes);
        RuntimeException e = assertThrows(RuntimeException.class, () -> start("always").close());
        assertTrue(e.getMessage().contains("appendonly.aof.1.incr.aof") && e.getMessage().contains("offset"), e.getMessage());
    }

    @Test
    void anExistingDumpBecomesTheBaseWhenTheLogIsFirstEnabled() throws Exception {
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString()));
             RawClient c = new RawClient(s.port())) {
            c.call("SET", "from-rdb", "yes");
            assertEquals("+OK\r\n", c.callString("SAVE"));
        }
        try (SpinelServer s = start("everysec"); RawClient c = new RawClient(s.port())) {
            assertEquals("$3\r\nyes\r\n", c.callString("GET", "from-rdb"));
        }
        Files.delete(dir.resolve("dump.rdb"));
        try (SpinelServer s = start("everysec"); RawClient c = new RawClient(s.port())) {
            assertEquals("$3\r\nyes\r\n", c.callString("GET", "from-rdb"));
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
