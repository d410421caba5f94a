package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FLUSHALL stops a running BGSAVE (Redis's killRDBChild), whose file would bring the flushed keys back: the save
 * ends within a second, no dump.rdb appears, the change counter keeps the keys' changes and the last save status
 * stays ok; the next BGSAVE works and resets the counter. Redis's rdb.tcl "Test FLUSHALL aborts bgsave", played
 * against redis-server and Spinel alike.
 */
class FlushallAbortsBgsaveTest {
    @TempDir
    Path dir;

    @Test
    void flushallStopsTheBackgroundSaveAsRedisDoes() throws Exception {
        List<String> redis;
        try (RedisServerProcess r = RedisServerProcess.start(); RawClient c = new RawClient(r.port())) {
            redis = play(c, r.dir());
        }
        List<String> spinel;
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString()));
             RawClient c = new RawClient(s.port())) {
            spinel = play(c, dir);
        }
        assertEquals(redis, spinel);
        assertEquals(List.of("1", "true", "ok", "false", "+OK\r\n", "0", "ok"), spinel);
    }

    private static List<String> play(RawClient c, Path dir) throws Exception {
        List<String> seen = new ArrayList<>();
        c.call("CONFIG", "SET", "save", "");
        c.call("CONFIG", "SET", "rdb-key-save-delay", "1000"); // 2000 keys: 2 s of saving
        for (int i = 0; i < 2000; i++) {
            c.call("SET", "key:" + i, "v" + i);
        }
        c.call("BGSAVE");
        seen.add(info(c, "rdb_bgsave_in_progress"));
        c.call("FLUSHALL");
        long deadline = System.currentTimeMillis() + 1000;
        while (!info(c, "rdb_bgsave_in_progress").equals("0") && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        seen.add(Boolean.toString(Long.parseLong(info(c, "rdb_changes_since_last_save")) > 1999));
        seen.add(info(c, "rdb_last_bgsave_status"));
        seen.add(Boolean.toString(Files.exists(dir.resolve("dump.rdb"))));
        seen.add(c.callString("SET", "x", "xx"));
        c.call("CONFIG", "SET", "rdb-key-save-delay", "0");
        c.call("BGSAVE");
        deadline = System.currentTimeMillis() + 10_000;
        while (!info(c, "rdb_bgsave_in_progress").equals("0") && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        seen.add(info(c, "rdb_changes_since_last_save"));
        seen.add(info(c, "rdb_last_bgsave_status"));
        assertTrue(Files.exists(dir.resolve("dump.rdb")));
        assertFalse(info(c, "rdb_bgsave_in_progress").equals("1"));
        return seen;
    }

    private static String info(RawClient c, String field) throws Exception {
        String all = c.callString("INFO", "persistence");
        int at = all.indexOf("\r\n" + field + ":");
        return all.substring(at + field.length() + 3, all.indexOf("\r\n", at + 2));
    }
}
