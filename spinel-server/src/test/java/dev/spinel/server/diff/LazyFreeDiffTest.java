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
 * INFO's lazyfreed_objects as redis-server 7.0.15 counts it: UNLINK counts a value whose free effort exceeds 64
 * (a stream of many nodes, its groups and PEL; a hash-table set; a skip-list sorted set), not a small one nor
 * a small stream with a deleted group; DEL counts nothing unless lazyfree-lazy-user-del; FLUSHDB/FLUSHALL ASYNC
 * count every key; CONFIG RESETSTAT resets it.
 */
class LazyFreeDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static final Pattern FIELD = Pattern.compile("lazyfreed_objects:(\\d+)\r\n");

    @Test
    void lazyfreedObjectsCountedAsRedis() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            c.call("FLUSHALL");
            c.call("CONFIG", "RESETSTAT");
            c.call("CONFIG", "SET", "stream-node-max-entries", "5");
            try {
                for (int j = 0; j < 1000; j++) {
                    c.call("XADD", "stream", (j + 1) + "-0", j % 10 == 0 ? "bar" : "foo", String.valueOf(j));
                }
                c.call("XGROUP", "CREATE", "stream", "mygroup", "0");
                c.call("XREADGROUP", "GROUP", "mygroup", "Alice", "COUNT", "2", "STREAMS", "stream", ">");
                c.call("XDEL", "stream", "2-0");
                c.call("XACK", "stream", "mygroup", "1-0");
                out.add(text(c.call("UNLINK", "stream")));
                out.add(lazyfreed(c));
                c.call("XADD", "s", "*", "a", "b");
                c.call("XGROUP", "CREATE", "s", "bla", "$");
                c.call("XGROUP", "DESTROY", "s", "bla");
                out.add(text(c.call("UNLINK", "s")));
                out.add(lazyfreed(c));
                List<String> members = new ArrayList<>(List.of("SADD", "big"));
                List<String> scored = new ArrayList<>(List.of("ZADD", "z"));
                for (int i = 0; i < 200; i++) {
                    members.add("m" + i);
                    scored.add(String.valueOf(i));
                    scored.add("m" + i);
                }
                c.call(members.toArray(String[]::new));
                c.call(scored.toArray(String[]::new));
                c.call("SADD", "small", "1", "2", "3");
                out.add(text(c.call("UNLINK", "big", "small", "z", "absent")));
                out.add(lazyfreed(c));
                c.call(members.toArray(String[]::new));
                out.add(text(c.call("DEL", "big")));
                out.add(lazyfreed(c));
                c.call("CONFIG", "SET", "lazyfree-lazy-user-del", "yes");
                c.call(members.toArray(String[]::new));
                out.add(text(c.call("DEL", "big")));
                out.add(lazyfreed(c));
                c.call("MSET", "a", "1", "b", "2", "c", "3");
                c.call("SELECT", "1");
                c.call("SET", "d", "4");
                c.call("SELECT", "0");
                out.add(text(c.call("FLUSHDB", "ASYNC")));
                out.add(lazyfreed(c));
                c.call("SET", "e", "5");
                out.add(text(c.call("FLUSHALL", "ASYNC")));
                out.add(lazyfreed(c));
                c.call("SET", "f", "6");
                out.add(text(c.call("FLUSHALL", "SYNC")));
                out.add(lazyfreed(c));
                c.call("CONFIG", "RESETSTAT");
                out.add(lazyfreed(c));
            } finally {
                c.call("CONFIG", "SET", "stream-node-max-entries", "100");
                c.call("CONFIG", "SET", "lazyfree-lazy-user-del", "no");
            }
        }
        return out;
    }

    private static String lazyfreed(RawClient c) throws Exception {
        // Redis frees in a background thread: wait until nothing is pending
        for (int i = 0; i < 100; i++) {
            String info = text(c.call("INFO", "memory"));
            if (info.contains("lazyfree_pending_objects:0\r\n")) {
                Matcher m = FIELD.matcher(info);
                return m.find() ? m.group(1) : "?";
            }
            Thread.sleep(20);
        }
        return "pending";
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
