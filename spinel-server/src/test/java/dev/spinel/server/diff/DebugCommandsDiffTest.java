package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DEBUG OBJECT, RELOAD, PROTOCOL and the set-up switches test suites call, against redis-server with
 * {@code enable-debug-command yes} on both (the differential scripts run with DEBUG off): replies byte for
 * byte in RESP2 and RESP3; DEBUG OBJECT's line field by field where it can be (the address differs).
 */
class DebugCommandsDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-debug-command", "yes", "enable-protected-configs", "yes");

    @TempDir
    static Path spinelDir;

    private static final List<List<String>> SCRIPT = List.of(
            List.of("FLUSHALL"),
            List.of("SET", "k", "v"),
            List.of("RPUSH", "l", "a", "b", "c"),
            List.of("DEBUG", "OBJECT", "nokey"),
            List.of("DEBUG", "OBJECT"),
            List.of("DEBUG", "ERROR", "LOADING fake message"),
            List.of("DEBUG", "ERROR", "READONLY a\r\nb\nc"),
            List.of("DEBUG", "ERROR", ""),
            List.of("DEBUG", "ERROR"),
            List.of("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
            List.of("DEBUG", "SET-ACTIVE-EXPIRE", "1"),
            List.of("DEBUG", "PAUSE-CRON", "0"),
            List.of("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "100"),
            List.of("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1b"),
            List.of("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "4095mb"),
            List.of("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "4096mb"),
            List.of("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "5gb"),
            List.of("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "abc"),
            List.of("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "-1"),
            List.of("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0"),
            List.of("DEBUG", "RELOAD"),
            List.of("GET", "k"),
            List.of("LRANGE", "l", "0", "-1"),
            List.of("SET", "k2", "x"),
            List.of("DEBUG", "RELOAD", "NOSAVE"),
            List.of("EXISTS", "k2"),
            List.of("DBSIZE"),
            List.of("DEBUG", "RELOAD", "NOSAVE", "NOFLUSH", "MERGE"),
            List.of("DBSIZE"),
            List.of("DEBUG", "RELOAD", "FOO"),
            List.of("DEBUG", "PROTOCOL", "string"),
            List.of("DEBUG", "PROTOCOL", "integer"),
            List.of("DEBUG", "PROTOCOL", "double"),
            List.of("DEBUG", "PROTOCOL", "bignum"),
            List.of("DEBUG", "PROTOCOL", "null"),
            List.of("DEBUG", "PROTOCOL", "array"),
            List.of("DEBUG", "PROTOCOL", "set"),
            List.of("DEBUG", "PROTOCOL", "map"),
            List.of("DEBUG", "PROTOCOL", "attrib"),
            List.of("DEBUG", "PROTOCOL", "push"),
            List.of("DEBUG", "PROTOCOL", "verbatim"),
            List.of("DEBUG", "PROTOCOL", "true"),
            List.of("DEBUG", "PROTOCOL", "false"),
            List.of("DEBUG", "PROTOCOL", "nosuch"),
            List.of("HELLO", "3"),
            List.of("DEBUG", "PROTOCOL", "double"),
            List.of("DEBUG", "PROTOCOL", "bignum"),
            List.of("DEBUG", "PROTOCOL", "null"),
            List.of("DEBUG", "PROTOCOL", "set"),
            List.of("DEBUG", "PROTOCOL", "map"),
            List.of("DEBUG", "PROTOCOL", "attrib"),
            List.of("DEBUG", "PROTOCOL", "verbatim"),
            List.of("DEBUG", "PROTOCOL", "true"),
            List.of("DEBUG", "PROTOCOL", "push"));

    @Test
    void debugSubcommandsAnswerLikeRedis() throws Exception {
        try (RawClient s = new RawClient(SERVERS.spinel().port()); RawClient r = new RawClient(SERVERS.redis().port())) {
            // DEBUG RELOAD writes dump.rdb: into a directory of this test's, never the working directory.
            assertEquals("+OK\r\n", s.callString("CONFIG", "SET", "dir", spinelDir.toString()));
            List<String> diffs = new ArrayList<>();
            boolean resp3 = false;
            for (List<String> cmd : SCRIPT) {
                List<byte[]> args = cmd.stream().map(a -> a.getBytes(StandardCharsets.ISO_8859_1)).toList();
                byte[] spinel = s.call(args);
                byte[] redis = r.call(args);
                if (cmd.get(0).equals("HELLO")) {
                    resp3 = true; // the reply holds the client id, which differs
                    continue;
                }
                compare(cmd.toString(), spinel, redis, diffs);
                if (resp3 && (cmd.contains("attrib") || cmd.contains("push"))) {
                    // RESP3 attributes and pushes come before the command's reply: read that one too
                    compare(cmd + " reply", s.readReply(), r.readReply(), diffs);
                }
            }
            assertEquals(List.of(), diffs);
        }
    }

    /** SET-ACTIVE-EXPIRE 0 leaves expired keys in place until read (DBSIZE counts them), 1 lets the cron delete them. */
    @Test
    void activeExpiryCanBeSwitchedOffAndOn() throws Exception {
        try (RawClient s = new RawClient(SERVERS.spinel().port()); RawClient r = new RawClient(SERVERS.redis().port())) {
            for (RawClient c : List.of(s, r)) {
                c.call("FLUSHALL");
                assertEquals("+OK\r\n", c.callString("DEBUG", "SET-ACTIVE-EXPIRE", "0"));
                for (int i = 0; i < 20; i++) {
                    c.call("SET", "short" + i, "v", "PX", "5");
                }
            }
            Thread.sleep(400); // four cron ticks at hz 10
            assertEquals(":20\r\n", r.callString("DBSIZE"));
            assertEquals(":20\r\n", s.callString("DBSIZE"), "no active expiry while switched off");
            for (RawClient c : List.of(s, r)) {
                assertEquals("+OK\r\n", c.callString("DEBUG", "SET-ACTIVE-EXPIRE", "1"));
            }
            long deadline = System.currentTimeMillis() + 5_000;
            while (!s.callString("DBSIZE").equals(":0\r\n") && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(":0\r\n", s.callString("DBSIZE"), "the cron deletes them once switched on");
        }
    }

    /** PAUSE-CRON 1 stops the cron's ticks, so active expiry too; 0 resumes them. */
    @Test
    void pauseCronStopsActiveExpiry() throws Exception {
        try (RawClient s = new RawClient(SERVERS.spinel().port())) {
            s.call("FLUSHALL");
            assertEquals("+OK\r\n", s.callString("DEBUG", "PAUSE-CRON", "1"));
            for (int i = 0; i < 20; i++) {
                s.call("SET", "short" + i, "v", "PX", "5");
            }
            Thread.sleep(400);
            assertEquals(":20\r\n", s.callString("DBSIZE"));
            assertEquals("+OK\r\n", s.callString("DEBUG", "PAUSE-CRON", "0"));
            long deadline = System.currentTimeMillis() + 5_000;
            while (!s.callString("DBSIZE").equals(":0\r\n") && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(":0\r\n", s.callString("DBSIZE"));
        }
    }

    @Test
    void debugObjectFieldsMatchRedisButTheAddress() throws Exception {
        try (RawClient s = new RawClient(SERVERS.spinel().port()); RawClient r = new RawClient(SERVERS.redis().port())) {
            for (RawClient c : List.of(s, r)) {
                c.call("FLUSHALL");
                c.call("SET", "str", "hello");
                c.call("SET", "small", "42");
                c.call("SET", "big", "123456789");
                c.call("RPUSH", "list", "a", "b", "c");
            }
            for (String key : List.of("str", "small", "big")) {
                String spinel = s.callString("DEBUG", "OBJECT", key);
                String redis = r.callString("DEBUG", "OBJECT", key);
                assertTrue(spinel.startsWith("+Value at:0x"), spinel);
                assertEquals(withoutAddressAndClock(redis), withoutAddressAndClock(spinel), key);
            }
        }
    }

    private static String withoutAddressAndClock(String line) {
        return line.replaceFirst("at:0x[0-9a-f]+", "at:ADDR").replaceFirst(" lru:\\d+ lru_seconds_idle:\\d+", " lru:CLOCK");
    }

    private static void compare(String what, byte[] spinel, byte[] redis, List<String> diffs) {
        String a = new String(spinel, StandardCharsets.ISO_8859_1);
        String b = new String(redis, StandardCharsets.ISO_8859_1);
        if (!a.equals(b)) {
            diffs.add(what + "\n  spinel: " + a.replace("\r\n", "\\r\\n") + "\n  redis:  " + b.replace("\r\n", "\\r\\n"));
        }
    }
}
