package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A script's writes in the append-only log, as Redis 7 propagates them (effects replication): the
 * write commands it executed, in MULTI/EXEC when there are several, never the EVAL itself; random
 * results (SPOP) and relative expiries logged as their effects. Spinel restarted from the log and a
 * real redis-server loading it show the same data.
 */
class ScriptAofTest {
    @TempDir
    Path dir;

    private SpinelServer start() {
        return AofReplay.startLogging(dir);
    }

    private static String state(RawClient c) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (String k : List.of("counter", "popped", "gone", "read")) {
            sb.append(k).append('=').append(c.callString("GET", k)).append(' ');
        }
        String popped = c.callString("GET", "popped");
        popped = popped.substring(popped.indexOf('\n') + 1, popped.length() - 2);
        sb.append("s=").append(c.callString("SCARD", "s")).append(c.callString("SISMEMBER", "s", popped));
        sb.append("h=").append(c.callString("HGETALL", "h"));
        sb.append("ttl=").append(c.callString("PEXPIRETIME", "h"));
        c.call("SELECT", "3");
        sb.append(" db3=").append(c.callString("GET", "other"));
        c.call("SELECT", "0");
        return sb.toString();
    }

    @Test
    @Timeout(60)
    void scriptEffectsAreLoggedAndReplayBothWays() throws Exception {
        String expected;
        try (SpinelServer s = start(); RawClient c = new RawClient(s.port())) {
            c.call("EVAL", "redis.call('incr', KEYS[1]); redis.call('incrby', KEYS[1], ARGV[1]); return redis.call('get', KEYS[1])",
                    "1", "counter", "41");
            c.call("EVAL", "redis.call('sadd', 's', 'a', 'b', 'c', 'd'); return redis.call('set', 'popped', redis.call('spop', 's'))", "0");
            c.call("EVAL", "redis.call('hset', 'h', 'f', 'v'); return redis.call('pexpire', 'h', 100000)", "0");
            c.call("EVAL", "return redis.call('set', 'gone', 'x')", "0"); // a single write: logged bare
            c.call("EVAL", "redis.call('select', 3); return redis.call('set', 'other', 'in db 3')", "0");
            c.call("EVAL", "return redis.call('get', 'counter')", "0"); // a read-only script: nothing logged
            c.call("EVAL_RO", "return redis.call('get', 'counter')", "0");
            c.call("EVAL", "return redis.pcall('incr', 's')", "0"); // a failed write: nothing logged
            c.call("MULTI");
            c.call("EVAL", "return redis.call('set', 'read', '1')", "0");
            c.call("EVAL", "return redis.call('append', 'read', '2')", "0");
            c.call("EXEC");
            expected = state(c);
        }
        String log = AofReplay.incrLogs(dir);
        assertFalse(log.toLowerCase(Locale.ROOT).contains("eval"), log);
        assertFalse(log.toLowerCase(Locale.ROOT).contains("spop"), log);
        assertEquals(4, log.split("MULTI", -1).length - 1, log); // incr+incrby, sadd+srem+set, hset+pexpireat, the EXEC block
        assertTrue(log.contains("$3\r\nset\r\n$4\r\ngone\r\n$1\r\nx\r\n"), log);
        assertTrue(log.contains("PEXPIREAT"), log);
        assertTrue(expected.contains("db3=$7\r\nin db 3"), expected);

        AofReplay.assertBothReplay(dir, expected, ScriptAofTest::state);
    }
}
