package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DEBUG LOADAOF against redis-server: with the log on, what was written (every type, times to live, keys
 * deleted or changed after the log's base, functions) comes back from the files, with the same DEBUG DIGEST
 * as Redis's; the replay is not logged again (a second LOADAOF gives the same data); a key set outside the
 * log (DEBUG POPULATE is not logged) is gone after the reload.
 */
class DebugLoadAofDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-debug-command", "yes", "enable-protected-configs", "yes");

    @TempDir
    static Path spinelDir;

    @Test
    void theDatasetComesBackFromTheLog() throws Exception {
        try (RawClient s = new RawClient(SERVERS.spinel().port()); RawClient r = new RawClient(SERVERS.redis().port())) {
            assertEquals("+OK\r\n", s.callString("CONFIG", "SET", "dir", spinelDir.toString()));
            for (RawClient c : List.of(s, r)) {
                c.call("FLUSHALL");
                c.call("FUNCTION", "FLUSH");
                c.call("SET", "before", "in the base");
                assertEquals("+OK\r\n", c.callString("CONFIG", "SET", "appendonly", "yes"));
            }
            for (RawClient c : List.of(s, r)) {
                waitForRewrite(c);
                c.call("SET", "str", "v", "EX", "1000");
                c.call("INCRBY", "counter", "41");
                c.call("INCR", "counter");
                c.call("RPUSH", "list", "a", "b", "c");
                c.call("LPOP", "list");
                c.call("SADD", "set", "1", "2", "x");
                c.call("ZADD", "zset", "1.5", "a", "2", "b");
                c.call("HSET", "hash", "f", "v", "g", "w");
                c.call("XADD", "stream", "1-1", "f", "v");
                c.call("PEXPIRE", "hash", "5000000");
                c.call("SELECT", "2");
                c.call("SET", "db2", "x");
                c.call("SELECT", "0");
                c.call("DEL", "before");
                c.call("SET", "before", "rewritten");
                c.call("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)");
                c.call("DEBUG", "POPULATE", "3", "notlogged");
            }
            String redisDigest = r.callString("DEBUG", "DIGEST");
            assertEquals(redisDigest, s.callString("DEBUG", "DIGEST"), "before the reload");
            for (RawClient c : List.of(s, r)) {
                assertEquals("+OK\r\n", c.callString("DEBUG", "LOADAOF"));
            }
            String reloaded = r.callString("DEBUG", "DIGEST");
            assertTrue(!reloaded.equals(redisDigest), "DEBUG POPULATE's keys are not in the log");
            assertEquals(reloaded, s.callString("DEBUG", "DIGEST"), "after the reload");
            assertEquals(r.callString("FUNCTION", "LIST"), s.callString("FUNCTION", "LIST"));
            assertEquals(":0\r\n", s.callString("EXISTS", "notlogged:0"));
            assertEquals("$9\r\nrewritten\r\n", s.callString("GET", "before"));
            // The replay was not appended to the log again: a second reload gives the same data.
            assertEquals("+OK\r\n", s.callString("DEBUG", "LOADAOF"));
            assertEquals(reloaded, s.callString("DEBUG", "DIGEST"));
            assertEquals(":43\r\n", s.callString("INCR", "counter"), "INCRBY and INCR replayed once each");
            for (RawClient c : List.of(s, r)) {
                c.call("CONFIG", "SET", "appendonly", "no");
                c.call("FUNCTION", "FLUSH");
                c.call("FLUSHALL");
            }
        }
    }

    private static void waitForRewrite(RawClient c) throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < deadline) {
            String info = c.callString("INFO", "persistence");
            if (info.contains("aof_rewrite_in_progress:0") && info.contains("aof_rewrite_scheduled:0")) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the AOF rewrite did not finish");
    }
}
