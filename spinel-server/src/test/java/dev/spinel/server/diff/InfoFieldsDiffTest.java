package dev.spinel.server.diff;

import dev.spinel.protocol.RespReader;
import dev.spinel.protocol.RespValue;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * INFO against redis-server: every section lists Redis 7.0.15's fields in Redis's order (Spinel's own
 * extras aside), and the counters of pub/sub and client tracking agree after the same subscriptions.
 */
class InfoFieldsDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    /** Fields only Spinel has; per-command and per-error lines depend on what ran. */
    private static final Set<String> SPINEL_ONLY = Set.of("spinel_version", "java_version", "jvm_heap_used", "jvm_heap_max");

    @Test
    void sectionsHoldRedisFieldsInRedisOrder() throws Exception {
        for (String section : List.of("server", "clients", "memory", "persistence", "stats", "replication", "cpu", "cluster")) {
            List<String> spinel = names(SERVERS.spinel().port(), section);
            spinel.removeAll(SPINEL_ONLY);
            assertEquals(names(SERVERS.redis().port(), section), spinel, section);
        }
    }

    @Test
    void pubSubAndTrackingCountersMatch() throws Exception {
        List<String> fields = List.of("tracking_clients", "pubsub_channels", "pubsub_patterns", "pubsubshard_channels",
                "tracking_total_keys", "tracking_total_items", "tracking_total_prefixes");
        assertEquals(countersAfterScenario(SERVERS.redis().port(), fields), countersAfterScenario(SERVERS.spinel().port(), fields));
    }

    @Test
    void memoryStatsHasRedisKeysInRedisOrder() throws Exception {
        assertEquals(memoryStatsKeys(SERVERS.redis().port()), memoryStatsKeys(SERVERS.spinel().port()));
    }

    /** MEMORY STATS's keys, in RESP3 (a map; db.N holds a nested map), after one key was set in db 0. */
    private static List<String> memoryStatsKeys(int port) throws Exception {
        try (RawClient c = new RawClient(port)) {
            c.call("HELLO", "3");
            c.call("FLUSHALL");
            c.call("SET", "k", "v");
            RespValue v = new RespReader(c.call("MEMORY", "STATS")).read();
            List<String> keys = new ArrayList<>();
            List<RespValue> entries = ((RespValue.MapValue) v).entries();
            for (int i = 0; i < entries.size(); i += 2) {
                String key = new String(((RespValue.BulkString) entries.get(i)).value(), StandardCharsets.US_ASCII);
                keys.add(key + ":" + entries.get(i + 1).getClass().getSimpleName());
            }
            return keys;
        }
    }

    private static Map<String, String> countersAfterScenario(int port, List<String> fields) throws Exception {
        try (RawClient sub = new RawClient(port); RawClient track = new RawClient(port); RawClient bcast = new RawClient(port);
             RawClient c = new RawClient(port)) {
            c.call("FLUSHALL");
            sub.call("SUBSCRIBE", "a");
            sub.call("SUBSCRIBE", "b");
            sub.call("PSUBSCRIBE", "p*");
            sub.call("SSUBSCRIBE", "s");
            track.call("CLIENT", "TRACKING", "on");
            track.call("GET", "x");
            track.call("MGET", "x", "y");
            c.call("CLIENT", "TRACKING", "on");
            c.call("GET", "x");
            bcast.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a", "PREFIX", "b");
            Map<String, String> all = parse(c.callString("INFO", "everything"));
            Map<String, String> out = new LinkedHashMap<>();
            for (String f : fields) {
                out.put(f, all.get(f));
            }
            c.call("CLIENT", "TRACKING", "off");
            return out;
        }
    }

    private static List<String> names(int port, String section) throws Exception {
        try (RawClient c = new RawClient(port)) {
            return new ArrayList<>(parse(c.callString("INFO", section)).keySet());
        }
    }

    private static Map<String, String> parse(String reply) {
        Map<String, String> out = new LinkedHashMap<>();
        String body = reply.substring(reply.indexOf("\r\n") + 2);
        for (String line : body.split("\r\n")) {
            int colon = line.indexOf(':');
            if (line.isEmpty() || line.startsWith("#") || colon < 0) {
                continue;
            }
            out.put(line.substring(0, colon), line.substring(colon + 1));
        }
        return out;
    }
}
