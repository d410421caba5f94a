package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis's unit/maxmemory "client tracking don't cause eviction feedback loop": ten RESP3 tracking clients have
 * read 300 keys with 1000-byte names; lowering maxmemory 40 KB below used_memory evicts some keys, and the
 * invalidations pushed to the ten clients must not make the next commands evict again. Spinel wrote each
 * delivery into an array of the client's own and kept it once sent, so the next cron counted up to 64 KB more
 * per tracking client and the following commands drained the database.
 */
class TrackingEvictionFeedbackDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void invalidationsOfEvictedKeysDoNotEvictMore() throws Exception {
        assertEquals(transcript(SERVERS.redis().port(), false), transcript(SERVERS.spinel().port(), true));
    }

    /**
     * {@code boundClients}: whether the clients' memory growth is part of the transcript. Only Spinel's is: under a
     * loaded machine redis-server's own mem_clients_normal sometimes grew past 64 KB here (a CI run, 2026-11-28),
     * so that figure is Spinel's bound, not a compared reply.
     */
    private static List<String> transcript(int port, boolean boundClients) throws Exception {
        List<String> out = new ArrayList<>();
        List<RawClient> trackers = new ArrayList<>();
        try (RawClient r = new RawClient(port)) {
            r.call("FLUSHALL");
            r.call("CONFIG", "SET", "maxmemory", "0");
            r.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
            r.call("CONFIG", "SET", "maxmemory-eviction-tenacity", "100");
            for (int i = 0; i < 10; i++) {
                RawClient c = new RawClient(port);
                trackers.add(c);
                c.call("HELLO", "3");
                c.call("CLIENT", "TRACKING", "on");
            }
            for (int j = 0; j < 300; j++) {
                String key = j + "x".repeat(1000);
                r.call("SET", key, "x");
                for (RawClient c : trackers) {
                    c.call("GET", key);
                }
            }
            Thread.sleep(1100); // as the unit: the cron trims the clients' idle query buffers first
            long used = field(r, "used_memory");
            long clientsBefore = field(r, "mem_clients_normal");
            out.add(text(r.call("CONFIG", "SET", "maxmemory", Long.toString(used - 40000))));
            out.add("dbsize in [200,300]: " + inRange(r.call("DBSIZE"), 200, 300));
            for (RawClient c : trackers) {
                out.add(text(c.readReply()).substring(0, 14)); // an invalidation is waiting
            }
            Thread.sleep(300); // a few cron ticks: nothing should wait for them to happen, so no condition to await
            // Redis's evicted count itself varies (its issue #8069: the unit checks 10 to 50, this sequence evicts
            // ~80 there); compared is what made Spinel drain the database: the clients' memory once the
            // invalidations were sent, which grew by the reply arrays the tracking clients kept.
            long grown = field(r, "mem_clients_normal") - clientsBefore;
            if (boundClients) {
                assertTrue(grown < 64 * 1024, "clients' memory grew by " + grown + " B");
            }
            out.add(text(r.call("SET", "after", "x")));
            out.add("dbsize in [200,300]: " + inRange(r.call("DBSIZE"), 200, 300));
            r.call("CONFIG", "SET", "maxmemory", "0");
        } finally {
            for (RawClient c : trackers) {
                c.close();
            }
        }
        return out;
    }

    private static boolean inRange(byte[] integerReply, long min, long max) {
        long n = Long.parseLong(text(integerReply).substring(1).trim());
        return n >= min && n <= max;
    }

    private static long field(RawClient r, String name) throws Exception {
        for (String line : text(r.call("INFO")).split("\r\n")) {
            if (line.startsWith(name + ":")) {
                return Long.parseLong(line.substring(name.length() + 1));
            }
        }
        throw new AssertionError(name + " missing");
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
