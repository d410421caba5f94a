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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * INFO persistence reports the persistence layer's real state: Redis 7.0's field names in its order
 * (compared with a real redis-server, log off and on), and values that follow SAVE, BGSAVE, writes and
 * CONFIG SET appendonly.
 */
class InfoPersistenceTest {
    @TempDir
    Path dir;

    static Map<String, String> info(RawClient c) throws Exception {
        String body = new String(c.call("INFO", "persistence"), StandardCharsets.ISO_8859_1);
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : body.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("$")) {
                m.put(line.substring(0, colon), line.substring(colon + 1));
            }
        }
        assertTrue(body.contains("# Persistence\r\n"), body);
        return m;
    }

    private static Map<String, String> awaitBgsave(RawClient c) throws Exception {
        long deadline = System.currentTimeMillis() + 20_000;
        while (System.currentTimeMillis() < deadline) {
            Map<String, String> m = info(c);
            if (m.get("rdb_bgsave_in_progress").equals("0") && m.get("aof_rewrite_in_progress").equals("0")) {
                return m;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("save did not finish");
    }

    @Test
    @Timeout(60)
    void fieldsAndValuesFollowSavesAndTheLog() throws Exception {
        List<String> redisOff;
        List<String> redisOn;
        Path rdir = dir.resolve("redis");
        Files.createDirectories(rdir);
        try (RedisServerProcess redis = RedisServerProcess.start("--dir", rdir.toString());
             RawClient c = new RawClient(redis.port())) {
            redisOff = new ArrayList<>(info(c).keySet());
            c.call("CONFIG", "SET", "appendonly", "yes");
            awaitBgsave(c);
            redisOn = new ArrayList<>(info(c).keySet());
        }
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString()));
             RawClient c = new RawClient(s.port())) {
            Map<String, String> m = info(c);
            assertEquals(redisOff, new ArrayList<>(m.keySet()));
            assertEquals("0", m.get("rdb_changes_since_last_save"));
            assertEquals("0", m.get("aof_enabled"));
            assertEquals("0", m.get("rdb_saves"));
            c.call("SET", "a", "1");
            c.call("RPUSH", "l", "x", "y");
            c.call("SADD", "s", "m");
            assertEquals("4", info(c).get("rdb_changes_since_last_save"));
            long before = System.currentTimeMillis() / 1000;
            assertEquals("+OK\r\n", c.callString("SAVE"));
            m = info(c);
            assertEquals("0", m.get("rdb_changes_since_last_save"));
            assertEquals("1", m.get("rdb_saves"));
            assertTrue(Long.parseLong(m.get("rdb_last_save_time")) >= before, m.toString());
            c.call("HSET", "h", "f", "v");
            assertEquals("1", info(c).get("rdb_changes_since_last_save"));
            assertEquals("+Background saving started\r\n", c.callString("BGSAVE"));
            m = awaitBgsave(c);
            assertEquals("0", m.get("rdb_changes_since_last_save"));
            assertEquals("2", m.get("rdb_saves"));
            assertEquals("ok", m.get("rdb_last_bgsave_status"));
            assertEquals("-1", m.get("rdb_current_bgsave_time_sec"));
            assertTrue(Long.parseLong(m.get("rdb_last_bgsave_time_sec")) >= 0, m.toString());

            assertEquals("+OK\r\n", c.callString("CONFIG", "SET", "appendonly", "yes"));
            m = awaitBgsave(c);
            assertEquals(redisOn, new ArrayList<>(m.keySet()));
            assertEquals("1", m.get("aof_enabled"));
            long base = Long.parseLong(m.get("aof_base_size"));
            assertTrue(base > 0, m.toString());
            c.call("SET", "more", "x".repeat(100));
            long cur = Long.parseLong(info(c).get("aof_current_size"));
            assertTrue(cur > base + 100, cur + " vs " + base);
        }
    }
}
