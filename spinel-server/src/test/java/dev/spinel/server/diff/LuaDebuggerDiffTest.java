package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SCRIPT DEBUG SYNC sessions (Redis's Lua debugger, LDB) against redis-server 7.0.15, byte for byte: the session's
 * log after each debugger command (stepping, print, list, whole, break, trace, eval, redis, maxlen, help, abort),
 * redis.debug and redis.breakpoint, the parsing of the raw commands (NULs, a 101-argument redis command, a
 * protocol error), the end of the session (its mark, the EVAL's reply, the connection closed), errors of SCRIPT
 * DEBUG itself, and a caller that goes away mid-session (the script runs to its end; an endless one is killed at
 * its timeout), the server answering again afterwards.
 */
class LuaDebuggerDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("busy-reply-threshold", "300");

    /** One debugger command (raw RESP) and how many replies it gets (2 when it ends the session: its log, EVAL's reply). */
    private record Step(byte[] request, int replies) {
    }

    private static Step cmd(String... args) {
        return new Step(RawClient.encode(Arrays.stream(args).map(s -> s.getBytes(StandardCharsets.ISO_8859_1)).toList()), 1);
    }

    private static Step last(String... args) {
        return new Step(cmd(args).request(), 2);
    }

    private static Step raw(String bytes, int replies) {
        return new Step(bytes.getBytes(StandardCharsets.ISO_8859_1), replies);
    }

    /** SCRIPT DEBUG SYNC, EVAL, the steps; every reply as text, then whether the server closed the connection. */
    private static List<String> transcript(int port, String script, List<String> keysAndArgs, List<Step> steps) throws IOException {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            out.add(c.callString("SCRIPT", "DEBUG", "SYNC"));
            List<String> eval = new ArrayList<>(List.of("EVAL", script));
            eval.addAll(keysAndArgs);
            out.add(c.callString(eval.toArray(String[]::new)));
            for (Step s : steps) {
                c.sendRaw(s.request());
                for (int i = 0; i < s.replies(); i++) {
                    out.add(new String(c.readReply(), StandardCharsets.ISO_8859_1));
                }
            }
            out.add("closed=" + c.isClosedByServer());
        }
        return out;
    }

    private static void same(String script, List<String> keysAndArgs, Step... steps) throws IOException {
        List<String> redis = transcript(SERVERS.redis().port(), script, keysAndArgs, List.of(steps));
        List<String> spinel = transcript(SERVERS.spinel().port(), script, keysAndArgs, List.of(steps));
        assertEquals(String.join("\n", redis), String.join("\n", spinel));
    }

    @Test
    @Timeout(60)
    void steppingPrintingListingAndBreakpoints() throws IOException {
        same("local t = {1,{2,3},'x'}\nlocal s = 'x\\0y'\nlocal f = 1.5e9\nredis.call('set','str','abc')\n"
                + "local ok = redis.pcall('incr','str')\nreturn {s, f}",
                List.of("1", "k1", "a1", "a2"),
                cmd("help"), cmd("p"), cmd("s"), cmd("s"), cmd("n"), cmd("print"), cmd("step"),
                cmd("p", "t"), cmd("p", "nope"), cmd("p", "KEYS"), cmd("print", "ARGV"),
                cmd("list"), cmd("l", "1", "1"), cmd("l", "0"), cmd("l", "2", "0"), cmd("whole"), cmd("w"),
                cmd("b"), cmd("b", "2", "3", "6", "6", "99", "x"), cmd("break"), cmd("b", "-3"), cmd("b"),
                cmd("b", "-2"), cmd("b"), cmd("b", "-7"), cmd("b", "0"), cmd("b"), cmd("b", "6"),
                cmd("t"), cmd("bogus"), cmd("r"), cmd("s", "extra"), last("c"));
    }

    @Test
    @Timeout(60)
    void evalRedisAndMaxlen() throws IOException {
        same("redis.call('set','big',string.rep('x',100))\nlocal n = 7\nreturn n",
                List.of("0"),
                cmd("s"), cmd("s"),
                cmd("e", "1+1"), cmd("eval", "n"), cmd("e", "error('x')"), cmd("e", "foo("), cmd("e", "local z = 1"),
                cmd("e", "KEYS"), cmd("e"), cmd("e", "{1,", "2}"),
                cmd("r", "ping"), cmd("redis", "incr", "counter"), cmd("r", "get", "big"), cmd("r", "hgetall", "nokey"),
                cmd("r", "get", "nokey"), cmd("r", "set"), cmd("r", "nosuch", "a"), cmd("r", "incr", "big"),
                cmd("m"), cmd("m", "61"), cmd("r", "get", "big"), cmd("m", "10"), cmd("maxlen", "0"),
                cmd("r", "get", "big"), cmd("m", "1", "2"), cmd("r", "lrange", "nolist", "0", "-1"), last("s"));
    }

    @Test
    @Timeout(60)
    void debugBreakpointFunctionsAndTrace() throws IOException {
        same("local function inner(x)\n  local y = x * 2\n  redis.breakpoint()\n  return y\nend\n"
                + "redis.debug('start', 1, {1,2}, true, nil)\nlocal r = inner(3)\nfor i=1,2 do\n  redis.debug('i', i)\nend\nreturn r",
                List.of("0"),
                cmd("c"), cmd("t"), cmd("p"), cmd("p", "x"), cmd("p", "r"), cmd("s"), cmd("s"), cmd("t"),
                cmd("b", "9"), cmd("c"), last("c"));
    }

    @Test
    @Timeout(60)
    void abortEndsTheSessionWithItsError() throws IOException {
        same("local x = 5\nredis.call('set','aborted','1')\nreturn x", List.of("0"), cmd("s"), cmd("s"), last("a"));
        same("return redis.call('nosuch')", List.of("0"), last("s"));
        same("return 1", List.of("5"), raw("", 1)); // the argument error, inside the session (after its end mark)
        same("return", List.of("0"), last("c"));
    }

    @Test
    @Timeout(60)
    void rawCommandParsing() throws IOException {
        String redis101 = "*101\r\n$5\r\nredis\r\n" + "$4\r\ntest\r\n".repeat(100);
        same("return 'hello'", List.of("0"),
                raw("*1\r\n$13\r\n'hello\0world'\r\n", 1), raw("*1\r\n$8\r\n'hello\0'\r\n", 1),
                raw("*1\r\n$8\r\n'\0hello'\r\n", 1), raw("*2\r\n$4\r\nh\0xy\r\n$1\r\nz\r\n", 1),
                raw("garbage*1\r\n$1\r\nl\r\n", 1), raw("*1\r\n$1\r\nw\r\n*1\r\n$1\r\nt\r\n", 1),
                raw("*2\r\n$1\r\nl\r\n", 0), raw("$1\r\n1\r\n", 1), raw(redis101, 1),
                raw("*1\r\n$0\r\n\r\n", 2));
        same("return 'hello'", List.of("0"), raw("PING\r\n", 2));
        same("return 'hello'", List.of("0"), raw("*1025\r\n", 2));
    }

    @Test
    @Timeout(60)
    void scriptDebugCommandErrors() throws IOException {
        for (int port : new int[] {SERVERS.redis().port(), SERVERS.spinel().port()}) {
            try (RawClient c = new RawClient(port)) {
                c.callString("SCRIPT", "LOAD", "return 1");
            }
        }
        List<String> redis = errors(SERVERS.redis().port());
        List<String> spinel = errors(SERVERS.spinel().port());
        assertEquals(redis, spinel);
        // Outside a session redis.debug returns nothing and redis.breakpoint false.
        for (int port : new int[] {SERVERS.redis().port(), SERVERS.spinel().port()}) {
            try (RawClient c = new RawClient(port)) {
                assertEquals("*2\r\n:0\r\n$-1\r\n", c.callString("EVAL", "return {select('#', redis.debug('x')), redis.breakpoint()}", "0"));
            }
        }
    }

    private static List<String> errors(int port) throws IOException {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            out.add(c.callString("SCRIPT", "DEBUG", "maybe"));
            out.add(c.callString("SCRIPT", "DEBUG"));
            out.add(c.callString("MULTI"));
            out.add(c.callString("SCRIPT", "DEBUG", "SYNC"));
            out.add(c.callString("EXEC"));
            c.sendRaw(concat(RawClient.encode(List.of("PING".getBytes())), RawClient.encode(
                    List.of("SCRIPT".getBytes(), "DEBUG".getBytes(), "SYNC".getBytes()))));
            out.add(new String(c.readReply(), StandardCharsets.ISO_8859_1));
            out.add(new String(c.readReply(), StandardCharsets.ISO_8859_1));
            out.add(c.callString("SCRIPT", "DEBUG", "no"));
            out.add(c.callString("EVAL", "return 1", "0"));
            out.add(c.callString("SCRIPT", "DEBUG", "sync"));
            out.add(c.callString("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"));
            out.add(c.callString("EVALSHA", "e0e1", "0"));
            out.add(c.callString("SCRIPT", "DEBUG", "NO"));
            out.add(c.callString("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"));
        }
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** SCRIPT DEBUG YES needs a fork (changes rolled back): refused by name rather than run as SYNC. */
    @Test
    void scriptDebugYesIsRefused() throws IOException {
        try (RawClient c = new RawClient(SERVERS.spinel().port())) {
            String reply = c.callString("SCRIPT", "DEBUG", "YES");
            assertTrue(reply.startsWith("-ERR SCRIPT DEBUG YES is not supported") && reply.contains("SCRIPT DEBUG SYNC"), reply);
            assertEquals("$1\r\n1\r\n", c.callString("EVAL", "return '1'", "0"), "no session started");
        }
    }

    @Test
    @Timeout(60)
    void callerGoneMidSessionLetsTheScriptEnd() throws Exception {
        for (int port : new int[] {SERVERS.redis().port(), SERVERS.spinel().port()}) {
            try (RawClient c = new RawClient(port)) {
                c.callString("SCRIPT", "DEBUG", "SYNC");
                c.callString("EVAL", "redis.call('set','gone','1')\nreturn 1", "0");
            }
            try (RawClient other = new RawClient(port)) {
                assertEquals("$1\r\n1\r\n", other.callString("GET", "gone"), "the script ran to its end, port " + port);
            }
            // An endless loop stops at the timeout, then, its caller gone, is killed: the server answers again.
            try (RawClient c = new RawClient(port)) {
                c.callString("SCRIPT", "DEBUG", "SYNC");
                c.callString("EVAL", "local i = 0\nwhile true do\n  i = i + 1\nend", "0");
                c.sendRaw(RawClient.encode(List.of("c".getBytes())));
                assertEquals("*2\r\n+* Stopped at 3, stop reason = timeout reached, infinite loop?\r\n+-> 3     i = i + 1\r\n",
                        new String(c.readReply(), StandardCharsets.ISO_8859_1));
            }
            try (RawClient other = new RawClient(port)) {
                other.setReadTimeout(20_000);
                // Redis reads the close and kills the script before it serves anyone; Spinel's script thread hears of
                // the close from the caller's loop, so a client on another loop may get BUSY for that moment (CI saw
                // it once): the script must be gone soon after, never left running.
                long deadline = System.nanoTime() + 10_000_000_000L;
                String reply = other.callString("PING");
                while (reply.startsWith("-BUSY") && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                    reply = other.callString("PING");
                }
                assertEquals("+PONG\r\n", reply);
            }
        }
    }
}
