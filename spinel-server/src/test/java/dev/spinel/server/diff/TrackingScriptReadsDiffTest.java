package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What a tracking client is sent around its scripts, against redis-server 7.0.15: a read inside a script tracks the
 * keys the script declared, at that read (Redis's call(): the caller's keys, not the read's), so a script that reads
 * its key and then writes it invalidates it at once, after its reply, and a later write by another client sends
 * nothing more. Undeclared keys a script reads are not tracked.
 */
class TrackingScriptReadsDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void scriptReadsAreTrackedAsRedis() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port); RawClient other = new RawClient(port)) {
            c.call("HELLO", "3");
            c.call("FLUSHALL");
            out.add(text(c.call("CLIENT", "TRACKING", "ON")));
            String[][] scripts = {
                {"EVAL", "return redis.call('get',KEYS[1])", "1", "d1"},
                {"EVAL_RO", "return redis.call('get',KEYS[1])", "1", "d2"},
                {"EVAL", "redis.call('get',KEYS[1]); redis.call('set',KEYS[1],'v'); return 1", "1", "d3"},
                {"EVAL", "redis.call('set',KEYS[1],'v'); redis.call('get',KEYS[1]); return 1", "1", "d4"},
                {"EVAL", "redis.call('get','u1'); redis.call('set','u1','v'); return 1", "0"},
                {"EVAL", "redis.call('get',KEYS[1]); redis.call('set',KEYS[1],'v'); redis.call('get',KEYS[1]); return 1", "1", "d5"},
                {"EVAL", "return redis.call('set',KEYS[1],'v')", "1", "d6"}};
            for (String[] script : scripts) {
                out.add(text(c.call(script)));
                out.addAll(pending(c));
                String key = script[script.length - 1].startsWith("d") ? script[script.length - 1] : "u1";
                other.call("SET", key, "z");
                out.add(text(c.call("PING")));
                out.addAll(pending(c));
            }
            out.add(text(c.call("CLIENT", "TRACKING", "OFF")));
            out.add(text(c.call("CLIENT", "TRACKING", "ON", "NOLOOP")));
            out.add(text(c.call("EVAL", "redis.call('get',KEYS[1]); redis.call('set',KEYS[1],'v'); return 1", "1", "n1")));
            out.addAll(pending(c));
            other.call("SET", "n1", "z");
            out.add(text(c.call("PING")));
            out.addAll(pending(c));
        }
        return out;
    }

    /** Pushes that arrive within 200 ms. */
    private static List<String> pending(RawClient c) throws Exception {
        List<String> out = new ArrayList<>();
        c.setReadTimeout(200);
        try {
            while (true) {
                out.add(text(c.readReply()));
            }
        } catch (SocketTimeoutException e) {
            return out;
        } finally {
            c.setReadTimeout(10_000);
        }
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
