package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Redis 7.0's unit/pause: CLIENT PAUSE WRITE holds scripts by the flags their scripts declare (an EVAL
 * without flags may replicate and is held, a {@code no-writes} one or EVAL_RO runs; FCALL of a function
 * that may write is held, FCALL_RO of a no-writes one runs; an EXEC whose queue holds a script that may
 * write is held), and suspends expiry: an expired key reads as absent but is neither deleted nor counted
 * as expired until the pause ends. Spinel ran every script and expired keys during the pause.
 */
class ClientPauseScriptsDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void writePauseHoldsScriptsThatMayWriteAsRedis() throws Exception {
        assertEquals(scripts(SERVERS.redis().port()), scripts(SERVERS.spinel().port()));
    }

    @Test
    void pauseSuspendsExpiryAsRedis() throws Exception {
        assertEquals(expiry(SERVERS.redis().port()), expiry(SERVERS.spinel().port()));
    }

    private static List<String> scripts(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port); RawClient d1 = new RawClient(port); RawClient d2 = new RawClient(port);
             RawClient d3 = new RawClient(port); RawClient d4 = new RawClient(port); RawClient r = new RawClient(port)) {
            out.add(text(c.call("FUNCTION", "LOAD", "REPLACE", "#!lua name=pauselib\n"
                    + "redis.register_function{function_name='pro', callback=function() return 'ro' end, flags={'no-writes'}}\n"
                    + "redis.register_function('prw', function() return 'rw' end)")));
            out.add(text(d4.call("MULTI")));
            out.add(text(d4.call("EVAL", "#!lua\nreturn 12", "0")));
            out.add(text(c.call("CLIENT", "PAUSE", "60000", "WRITE")));
            d1.send(args("EVAL", "return 1", "0"));
            d2.send(args("EVAL", "#!lua\nreturn 2", "0"));
            d3.send(args("FCALL", "prw", "0"));
            d4.send(args("EXEC"));
            out.add("blocked " + waitBlocked(c, 4));
            // not held: they answer while the others wait
            out.add(text(r.call("EVAL", "#!lua flags=no-writes\nreturn 3", "0")));
            out.add(text(r.call("EVAL_RO", "return 4", "0")));
            out.add(text(r.call("EVALSHA", text(r.call("SCRIPT", "LOAD", "#!lua flags=no-writes\nreturn 5")).split("\r\n")[1], "0")));
            out.add(text(r.call("FCALL", "pro", "0")));
            out.add(text(r.call("FCALL_RO", "pro", "0")));
            out.add(text(r.call("MULTI")));
            out.add(text(r.call("EVAL", "#!lua flags=no-writes\nreturn 6", "0")));
            out.add(text(r.call("EXEC")));
            out.add("blocked " + field(text(c.call("INFO", "clients")), "blocked_clients"));
            out.add(text(c.call("CLIENT", "UNPAUSE")));
            out.add(text(d1.readReply()));
            out.add(text(d2.readReply()));
            out.add(text(d3.readReply()));
            out.add(text(d4.readReply()));
            out.add(text(c.call("FUNCTION", "DELETE", "pauselib")));
        }
        return out;
    }

    private static List<String> expiry(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            c.call("SELECT", "5");
            c.call("FLUSHDB");
            long expired = field(text(c.call("INFO", "stats")), "expired_keys");
            out.add(text(c.call("MULTI")));
            out.add(text(c.call("SET", "foo", "bar", "PX", "20")));
            out.add(text(c.call("SET", "bar", "foo", "PX", "20")));
            out.add(text(c.call("CLIENT", "PAUSE", "50000", "WRITE")));
            out.add(text(c.call("EXEC")));
            Thread.sleep(300); // past the keys' time to live, and several active-expiry cycles
            out.add(text(c.call("GET", "foo")));
            out.add(text(c.call("EXISTS", "bar")));
            out.add("expired " + (field(text(c.call("INFO", "stats")), "expired_keys") - expired));
            out.add(text(c.call("DBSIZE")));
            out.add(text(c.call("CLIENT", "UNPAUSE")));
            out.add(text(c.call("GET", "foo")));
            out.add(text(c.call("GET", "bar")));
            out.add("expired " + (field(text(c.call("INFO", "stats")), "expired_keys") - expired));
            out.add(text(c.call("DBSIZE")));
        }
        return out;
    }

    private static long waitBlocked(RawClient c, int n) throws Exception {
        long deadline = System.currentTimeMillis() + 5000;
        long blocked;
        do {
            blocked = field(text(c.call("INFO", "clients")), "blocked_clients");
            if (blocked >= n) {
                break;
            }
            Thread.sleep(20);
        } while (System.currentTimeMillis() < deadline);
        return blocked;
    }

    private static List<byte[]> args(String... a) {
        List<byte[]> out = new ArrayList<>();
        for (String s : a) {
            out.add(s.getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    private static long field(String info, String name) {
        Matcher m = Pattern.compile("\r\n" + name + ":(\\d+)\r\n").matcher(info);
        if (!m.find()) {
            throw new AssertionError(name + " missing: " + info);
        }
        return Long.parseLong(m.group(1));
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
