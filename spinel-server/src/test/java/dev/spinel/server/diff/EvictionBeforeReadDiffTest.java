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
 * Redis 7.0's unit/tracking "Tracking invalidation message of eviction keys should be before response":
 * maxmemory is set 100 KB above used_memory, a 200 KB write takes the server over it, and the next command,
 * a read, evicts first (Redis's performEvictions runs before every command while maxmemory is set), so the
 * evicted key's invalidation comes before the read's reply. Spinel evicted only before commands that may
 * grow the dataset.
 */
class EvictionBeforeReadDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void aReadEvictsBeforeItsReplyAsRedis() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient r = new RawClient(port)) {
            out.add(text(r.call("FLUSHALL")));
            r.call("HELLO", "3");
            out.add(text(r.call("CLIENT", "TRACKING", "on")));
            String info = text(r.call("INFO", "memory"));
            long limit = field(info, "used_memory") - field(info, "mem_not_counted_for_evict") + 100 * 1024;
            out.add(text(r.call("CONFIG", "SET", "maxmemory", Long.toString(limit))));
            out.add(text(r.call("CONFIG", "SET", "maxmemory-policy", "volatile-random")));
            out.add(text(r.call("SETEX", "volatile-key", "10000", "x")));
            out.add(text(r.call("GET", "volatile-key")));
            out.add(text(r.call("SETBIT", "big-key", "1600000", "0")));
            out.add(text(r.call("GETBIT", "big-key", "0")));
            out.add(text(r.readReply()));
            out.add(text(r.call("CONFIG", "SET", "maxmemory-policy", "noeviction")));
            out.add(text(r.call("CONFIG", "SET", "maxmemory", "0")));
            out.add(text(r.call("EXISTS", "volatile-key")));
            out.add(text(r.call("FLUSHALL")));
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
