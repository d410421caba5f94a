package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisCheckAof;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The append-only log with every collection type: writes of each family (including the random and
 * blocking ones, logged as what they did: SPOP → SREM, BLPOP → LPOP, a blocked BLMOVE served by a
 * push → LMOVE, HINCRBYFLOAT → HSET), a rewrite whose RDB base holds lists, hashes, sets and sorted
 * sets, then more writes. Spinel restarted from the log, and a real redis-server loading the same
 * directory, both show exactly the state Spinel had; redis-check-aof accepts the directory.
 */
class AofCollectionsTest {
    @TempDir
    Path dir;

    private SpinelServer start() {
        return AofReplay.startLogging(dir);
    }

    private static final String[] UNIVERSE = new String[60];

    static {
        for (int i = 0; i < 50; i++) {
            UNIVERSE[i] = "m" + i;
        }
        for (int i = 50; i < 60; i++) {
            UNIVERSE[i] = Integer.toString(i * 1000);
        }
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    /** Order-independent contents of every key the test writes. */
    static String state(RawClient c) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (String db : List.of("0", "2")) {
            c.call("SELECT", db);
            sb.append("db").append(db).append(' ').append(s(c.call("DBSIZE")));
            for (String l : List.of("list", "big", "bq", "dst", "mq", "q2")) {
                sb.append(l).append('=').append(s(c.call("LRANGE", l, "0", "-1"))).append(s(c.call("PEXPIRETIME", l)));
            }
            for (String h : List.of("hash", "hbig")) {
                sb.append(h).append('=').append(s(c.call("HLEN", h)));
                for (int i = 0; i < 300; i++) {
                    sb.append(s(c.call("HGET", h, "f" + i)));
                }
            }
            String[] smis = new String[UNIVERSE.length + 2];
            smis[0] = "SMISMEMBER";
            System.arraycopy(UNIVERSE, 0, smis, 2, UNIVERSE.length);
            for (String set : List.of("set", "ints", "popped")) {
                smis[1] = set;
                sb.append(set).append('=').append(s(c.call("SCARD", set))).append(s(c.call(smis)));
            }
            for (String z : List.of("zset", "zbig")) {
                sb.append(z).append('=').append(s(c.call("ZRANGE", z, "0", "-1", "WITHSCORES")));
            }
        }
        c.call("SELECT", "0");
        return sb.toString();
    }

    private static void writes(RawClient c, RawClient blocked, String db) throws Exception {
        c.call("SELECT", db);
        blocked.call("SELECT", db);
        c.call("RPUSH", "list", "a", "b", "c", "1", "-20", "x".repeat(100));
        c.call("LPUSH", "list", "head");
        c.call("LSET", "list", "1", "set");
        c.call("LINSERT", "list", "BEFORE", "c", "ins");
        c.call("LREM", "list", "1", "b");
        c.call("LTRIM", "list", "0", "5");
        for (int i = 0; i < 300; i++) {
            c.call("RPUSH", "big", "e" + i);
        }
        c.call("LPOP", "big", "3");
        c.call("PEXPIRE", "big", "100000000");
        c.call("HSET", "hash", "f1", "v1", "f2", "2", "f3", "3.5");
        c.call("HINCRBY", "hash", "f2", "40");
        c.call("HINCRBYFLOAT", "hash", "f3", "0.1");
        c.call("HSETNX", "hash", "f4", "four");
        c.call("HDEL", "hash", "f1");
        for (int i = 0; i < 300; i++) {
            c.call("HSET", "hbig", "f" + i, "v".repeat(i % 80));
        }
        c.call("SADD", "set", "m1", "m2", "m3", "m4", "m5");
        c.call("SREM", "set", "m2");
        c.call("SMOVE", "set", "other", "m3");
        c.call("SADD", "ints", "50000", "51000", "52000", "53000");
        String[] many = new String[52];
        many[0] = "SADD";
        many[1] = "popped";
        System.arraycopy(UNIVERSE, 0, many, 2, 50);
        c.call(many);
        c.call("SPOP", "popped");
        c.call("SPOP", "popped", "7");
        c.call("SPOP", "ints");
        c.call("ZADD", "zset", "1", "a", "2", "b", "3.25", "c", "-inf", "d");
        c.call("ZINCRBY", "zset", "0.5", "a");
        c.call("ZREM", "zset", "b");
        for (int i = 0; i < 200; i++) {
            c.call("ZADD", "zbig", Double.toString(i * 0.75), "z" + i);
        }
        c.call("ZPOPMIN", "zbig", "2");
        c.call("ZREMRANGEBYSCORE", "zbig", "10", "20");
        // blocking forms served at once, and served later by a push from another client
        c.call("RPUSH", "bq", "1", "2", "3");
        c.call("BLPOP", "none", "bq", "0");
        c.call("BLMOVE", "bq", "dst", "LEFT", "RIGHT", "0");
        c.call("BLMPOP", "0", "1", "bq", "RIGHT", "COUNT", "5");
        blocked.send(List.of("BLPOP".getBytes(), "mq".getBytes(), "0".getBytes()));
        Thread.sleep(100);
        c.call("RPUSH", "mq", "p1", "p2");
        assertEquals("*2\r\n$2\r\nmq\r\n$2\r\np1\r\n", s(blocked.readReply()));
        blocked.send(List.of("BLMOVE".getBytes(), "mq".getBytes(), "q2".getBytes(), "LEFT".getBytes(), "LEFT".getBytes(), "0".getBytes()));
        Thread.sleep(100);
        c.call("RPUSH", "mq", "p3");
        assertEquals("$2\r\np2\r\n", s(blocked.readReply()));
        c.call("SELECT", "0");
    }

    @Test
    @Timeout(120)
    void everyTypeSurvivesTheLogAndItsRewriteAndRedisLoadsIt() throws Exception {
        String expected;
        try (SpinelServer s = start(); RawClient c = new RawClient(s.port()); RawClient b = new RawClient(s.port())) {
            writes(c, b, "0");
            assertEquals("+Background append only file rewriting started\r\n", c.callString("BGREWRITEAOF"));
            long deadline = System.currentTimeMillis() + 20_000;
            while (System.currentTimeMillis() < deadline) {
                StringBuilder info = new StringBuilder();
                s.persistence().appendInfo(info);
                if (info.toString().contains("aof_rewrite_in_progress:0")) {
                    break;
                }
                Thread.sleep(10);
            }
            writes(c, b, "2");
            expected = state(c);
        }
        Path aofDir = dir.resolve("appendonlydir");
        String manifest = Files.readString(aofDir.resolve("appendonly.aof.manifest"));
        assertTrue(manifest.contains("appendonly.aof.2.base.rdb"), manifest);
        String log = Files.readString(aofDir.resolve("appendonly.aof.2.incr.aof"), StandardCharsets.ISO_8859_1);
        assertTrue(log.contains("$4\r\nSREM\r\n") && log.contains("$5\r\nLMOVE\r\n") && log.contains("$4\r\nHSET\r\n"), log);
        assertFalse(log.contains("SPOP") || log.contains("BLPOP") || log.contains("BLMOVE") || log.contains("BLMPOP")
                || log.contains("HINCRBYFLOAT"), log);

        RedisCheckAof.assertValid(aofDir);

        AofReplay.assertBothReplay(dir, expected, AofCollectionsTest::state);
    }
}
