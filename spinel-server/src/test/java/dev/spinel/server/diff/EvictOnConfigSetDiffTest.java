package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Redis 7.0's unit/pubsub "Keyspace notifications: evicted events": lowering maxmemory with CONFIG SET
 * evicts at once (Redis's updateMaxmemory runs performEvictions), so the evicted event reaches a subscriber
 * without any further command; the test waited forever on Spinel, which evicted only before a write.
 */
class EvictOnConfigSetDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void lowerMaxmemoryEvictsAtOnceAsRedis() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient r = new RawClient(port); RawClient sub = new RawClient(port)) {
            r.call("SELECT", "9");
            out.add(text(r.call("CONFIG", "SET", "notify-keyspace-events", "Ee")));
            out.add(text(r.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")));
            out.add(text(sub.call("PSUBSCRIBE", "*")));
            out.add(text(r.call("SET", "foo", "bar")));
            out.add(text(r.call("CONFIG", "SET", "maxmemory", "1")));
            out.add(text(sub.readReply())); // waits (10 s at most) for the eviction's event
            out.add(text(r.call("CONFIG", "SET", "maxmemory", "0")));
            out.add(text(r.call("DBSIZE")));
            out.add(text(r.call("CONFIG", "SET", "maxmemory-policy", "noeviction")));
            out.add(text(r.call("CONFIG", "SET", "notify-keyspace-events", "")));
        }
        return out;
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
