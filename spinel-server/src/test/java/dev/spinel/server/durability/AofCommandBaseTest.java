package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.Await;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code aof-use-rdb-preamble no}: the log's base is written as commands (Redis's rewriteAppendOnlyFileRio),
 * named {@code *.base.aof}, starting with "#TS:" under aof-timestamp-enabled. Both directions of a user moving
 * between Redis and Spinel: a base Spinel wrote is loaded by redis-server, and a base redis-server 7.0.15 wrote
 * is loaded by Spinel, each with the same keys, types, TTLs, values (DEBUG DIGEST-VALUE), stream groups and
 * pending entries, and function libraries as the server that wrote it.
 */
class AofCommandBaseTest {
    @TempDir
    Path dir;

    private static final List<String> KEYS = List.of("s1", "n1", "big", "ttl", "list", "set", "iset", "hash", "zset",
            "st", "es", "mk", "other");

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    /** Every type, collections past one 64-item command, TTLs, a stream with groups, consumers and pending entries. */
    static void populate(RawClient c) throws Exception {
        c.call("FUNCTION", "LOAD", "#!lua name=lib1\nredis.register_function('f1', function() return 1 end)");
        c.call("SET", "s1", "hello");
        c.call("SET", "n1", "12345");
        c.call("SET", "big", "x".repeat(200));
        c.call("SET", "ttl", "v", "PXAT", Long.toString(System.currentTimeMillis() + 100_000_000L));
        List<String> list = new ArrayList<>(List.of("RPUSH", "list"));
        List<String> set = new ArrayList<>(List.of("SADD", "set"));
        List<String> iset = new ArrayList<>(List.of("SADD", "iset"));
        List<String> hash = new ArrayList<>(List.of("HSET", "hash"));
        List<String> zset = new ArrayList<>(List.of("ZADD", "zset", "inf", "top", "-inf", "bottom", "0.1", "tenth"));
        for (int i = 0; i < 150; i++) {
            list.add("e" + i);
            set.add("m" + i);
            iset.add(Integer.toString(i * 7 - 300));
            hash.add("f" + i);
            hash.add(i % 3 == 0 ? Integer.toString(i) : "v" + i);
            zset.add(Double.toString(i / 3.0));
            zset.add("z" + i);
        }
        c.call(list.toArray(String[]::new));
        c.call(set.toArray(String[]::new));
        c.call(iset.toArray(String[]::new));
        c.call(hash.toArray(String[]::new));
        c.call(zset.toArray(String[]::new));
        c.call("PEXPIRE", "list", "90000000");
        c.call("XADD", "st", "1-1", "a", "1");
        c.call("XADD", "st", "2-1", "b", "2", "c", "3");
        c.call("XADD", "st", "3-1", "a", "4");
        c.call("XADD", "st", "4-1", "a", "5");
        c.call("XDEL", "st", "2-1");
        c.call("XGROUP", "CREATE", "st", "g1", "0");
        c.call("XREADGROUP", "GROUP", "g1", "alice", "COUNT", "2", "STREAMS", "st", ">");
        c.call("XGROUP", "CREATECONSUMER", "st", "g1", "bob");
        c.call("XCLAIM", "st", "g1", "bob", "0", "3-1", "TIME", "1700000000000", "RETRYCOUNT", "5");
        c.call("XGROUP", "CREATE", "st", "g2", "$");
        c.call("XADD", "es", "5-5", "f", "v");
        c.call("XDEL", "es", "5-5");
        c.call("XGROUP", "CREATE", "es", "g", "0");
        c.call("XGROUP", "CREATE", "mk", "g", "$", "MKSTREAM");
        c.call("SELECT", "3");
        c.call("SET", "other", "in-db-3");
        c.call("PEXPIREAT", "other", Long.toString(System.currentTimeMillis() + 50_000_000L));
        c.call("SELECT", "0");
    }

    /** What must survive: per key its type, expiry, value digest and, for streams, groups/consumers/PEL. */
    static String state(RawClient c) throws Exception {
        StringBuilder sb = new StringBuilder(s(c.call("FUNCTION", "LIST", "WITHCODE")));
        for (String db : List.of("0", "3")) {
            c.call("SELECT", db);
            sb.append("db").append(db).append(s(c.call("DBSIZE")));
            for (String k : KEYS) {
                String type = s(c.call("TYPE", k));
                String digest = s(c.call("DEBUG", "DIGEST-VALUE", k));
                assertTrue(digest.matches("\\*1\r\n\\+[0-9a-f]{40}\r\n"), digest);
                sb.append(k).append(type).append(s(c.call("PEXPIRETIME", k))).append(digest);
                if (type.equals("+stream\r\n")) {
                    // a consumer's seen-time is when the loading server created it; the node layout is encoding
                    sb.append(s(c.call("XINFO", "STREAM", k, "FULL"))
                            .replaceAll("(seen-time|active-time|radix-tree-keys|radix-tree-nodes)\r\n:\\d+", "$1"));
                }
            }
        }
        c.call("SELECT", "0");
        return sb.toString();
    }

    private static ServerConfig config(Path dir) {
        return ServerConfig.defaults().with("port", "0").with("dir", dir.toString()).with("appendonly", "yes")
                .with("appendfsync", "always").with("aof-use-rdb-preamble", "no").with("aof-timestamp-enabled", "yes").with("enable-debug-command", "yes");
    }

    @Test
    @Timeout(120)
    void spinelWritesACommandBaseThatRedisAndSpinelLoad() throws Exception {
        String expected;
        Path aofDir = dir.resolve("appendonlydir");
        try (SpinelServer s = SpinelServer.start(config(dir)); RawClient c = new RawClient(s.port())) {
            String first = Files.readString(aofDir.resolve("appendonly.aof.manifest"));
            assertTrue(first.contains("file appendonly.aof.1.base.aof seq 1 type b"), first);
            populate(c);
            expected = state(c);
            assertEquals("+Background append only file rewriting started\r\n", c.callString("BGREWRITEAOF"));
            Await.waitFor(() -> s(c.call("INFO", "persistence")).contains("aof_rewrite_in_progress:0")
                    && Files.readString(aofDir.resolve("appendonly.aof.manifest")).contains(".2.base.aof"), "the rewrite");
        }
        String manifest = Files.readString(aofDir.resolve("appendonly.aof.manifest"));
        assertTrue(manifest.contains("file appendonly.aof.2.base.aof seq 2 type b"), manifest);
        String base = Files.readString(aofDir.resolve("appendonly.aof.2.base.aof"), StandardCharsets.ISO_8859_1);
        assertTrue(base.matches("(?s)#TS:\\d+\r\n\\*3\r\n\\$8\r\nFUNCTION\r\n\\$4\r\nLOAD\r\n.*"), base);
        // 150 items: 64 + 64 + 22 per command, as Redis's AOF_REWRITE_ITEMS_PER_CMD
        assertTrue(base.contains("*66\r\n$5\r\nRPUSH\r\n$4\r\nlist\r\n") && base.contains("*24\r\n$5\r\nRPUSH\r\n$4\r\nlist\r\n"), base);
        assertTrue(base.contains("*130\r\n$5\r\nHMSET\r\n$4\r\nhash\r\n"), base);
        assertTrue(base.contains("*3\r\n$9\r\nPEXPIREAT\r\n$4\r\nlist\r\n"), base);
        RedisCheckAof.assertValid(aofDir);
        try (SpinelServer s = SpinelServer.start(config(dir)); RawClient c = new RawClient(s.port())) {
            assertEquals(expected, state(c), "Spinel restarted from its command base");
        }
        try (RedisServerProcess redis = RedisServerProcess.start("--dir", dir.toString(), "--appendonly", "yes",
                "--enable-debug-command", "yes");
             RawClient c = new RawClient(redis.port())) {
            AofTest.awaitLoaded(c);
            assertEquals(expected, state(c), "redis-server loading Spinel's command base");
        }
    }

    @Test
    @Timeout(120)
    void spinelLoadsTheCommandBaseRedisWrote() throws Exception {
        String expected;
        try (RedisServerProcess redis = RedisServerProcess.start("--dir", dir.toString(), "--appendonly", "yes",
                "--aof-use-rdb-preamble", "no", "--aof-timestamp-enabled", "yes", "--enable-debug-command", "yes");
             RawClient c = new RawClient(redis.port())) {
            AofTest.awaitLoaded(c);
            populate(c);
            expected = state(c);
            c.call("BGREWRITEAOF");
            Await.waitFor(() -> s(c.call("INFO", "persistence")).contains("aof_rewrite_in_progress:0")
                    && Files.exists(dir.resolve("appendonlydir/appendonly.aof.2.base.aof")), "redis-server's rewrite");
        }
        String base = Files.readString(dir.resolve("appendonlydir/appendonly.aof.2.base.aof"), StandardCharsets.ISO_8859_1);
        assertTrue(base.startsWith("#TS:") && base.contains("XSETID"), base);
        try (SpinelServer s = SpinelServer.start(config(dir)); RawClient c = new RawClient(s.port())) {
            assertEquals(expected, state(c), "Spinel loading redis-server's command base");
        }
    }
}
