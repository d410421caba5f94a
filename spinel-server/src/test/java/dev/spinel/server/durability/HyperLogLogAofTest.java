package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HyperLogLog writes in the append-only log, logged as Redis logs them (PFCOUNT that refreshes the
 * cached cardinality is a write, logged as received): Spinel restarted from the log and a real
 * redis-server loading the same directory hold the very same HLL bytes, cache included; the same for
 * RDB snapshots, written by Spinel and loaded by Redis, written by Redis and loaded by Spinel.
 */
class HyperLogLogAofTest {
    @TempDir
    Path dir;

    private SpinelServer start() {
        return AofReplay.startLogging(dir);
    }

    private static final List<String> KEYS = List.of("sparse", "dense", "merged", "counted", "todense");

    private static String state(RawClient c) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (String k : KEYS) {
            sb.append(k).append('=').append(new String(c.call("GET", k), StandardCharsets.ISO_8859_1)).append('\n');
        }
        return sb.toString();
    }

    @Test
    @Timeout(120)
    void hllBytesSurviveTheLogAndRedisLoadsThem() throws Exception {
        String expected;
        try (SpinelServer s = start(); RawClient c = new RawClient(s.port())) {
            c.call("PFADD", "sparse", "a", "b", "c");
            String[] many = new String[2002];
            many[0] = "PFADD";
            many[1] = "dense";
            for (int i = 0; i < 2000; i++) {
                many[i + 2] = "e" + i;
            }
            c.call(many);
            c.call("PFCOUNT", "dense"); // refreshes the cache: logged
            c.call("PFADD", "counted", "x", "y");
            c.call("PFCOUNT", "counted");
            c.call("PFCOUNT", "counted"); // answered from the cache: not logged
            c.call("PFMERGE", "merged", "sparse", "counted");
            c.call("PFADD", "todense", "q");
            c.call("PFDEBUG", "TODENSE", "todense");
            c.call("PFCOUNT", "sparse", "dense"); // several keys: read only
            expected = state(c);
        }
        String log = AofReplay.incrLogs(dir);
        assertEquals(2, log.split("\\$7\r\nPFCOUNT\r\n", -1).length - 1, log);
        assertTrue(log.contains("$7\r\nPFDEBUG\r\n"), log);
        AofReplay.assertBothReplay(dir, expected, HyperLogLogAofTest::state);
    }

    @Test
    @Timeout(120)
    void hllBytesSurviveASnapshotBothWays() throws Exception {
        Path spinelDir = dir.resolve("s");
        Path redisDir = dir.resolve("r");
        Files.createDirectories(spinelDir);
        Files.createDirectories(redisDir);
        String expected;
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", spinelDir.toString()));
             RawClient c = new RawClient(s.port())) {
            fill(c);
            expected = state(c);
            assertEquals("+OK\r\n", c.callString("SAVE"));
        }
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", spinelDir.toString()));
             RawClient c = new RawClient(s.port())) {
            assertEquals(expected, state(c));
        }
        try (RedisServerProcess redis = RedisServerProcess.start("--dir", spinelDir.toString());
             RawClient c = new RawClient(redis.port())) {
            assertEquals(expected, state(c));
        }
        // and a dump.rdb written by Redis, loaded by Spinel
        try (RedisServerProcess redis = RedisServerProcess.start("--dir", redisDir.toString());
             RawClient c = new RawClient(redis.port())) {
            fill(c);
            assertEquals(expected, state(c));
            assertEquals("+OK\r\n", c.callString("SAVE"));
        }
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", redisDir.toString()));
             RawClient c = new RawClient(s.port())) {
            assertEquals(expected, state(c));
            c.call("PFADD", "dense", "one more");
            c.call("PFADD", "sparse", "one more");
            assertTrue(c.callString("PFCOUNT", "dense", "sparse", "merged").startsWith(":"));
        }
    }

    private static void fill(RawClient c) throws Exception {
        c.call("PFADD", "sparse", "a", "b", "c");
        String[] many = new String[2002];
        many[0] = "PFADD";
        many[1] = "dense";
        for (int i = 0; i < 2000; i++) {
            many[i + 2] = "e" + i;
        }
        c.call(many);
        c.call("PFCOUNT", "dense");
        c.call("PFADD", "counted", "x", "y");
        c.call("PFCOUNT", "counted");
        c.call("PFMERGE", "merged", "sparse", "counted");
        c.call("PFADD", "todense", "q");
        c.call("PFDEBUG", "TODENSE", "todense");
    }
}
