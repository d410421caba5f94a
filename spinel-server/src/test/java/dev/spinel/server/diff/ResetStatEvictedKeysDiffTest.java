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
 * CONFIG RESETSTAT zeroes INFO's evicted_keys, as Redis's resetServerStats: Redis's unit/maxmemory resets the
 * stats and then asserts that no key was evicted since; Spinel kept counting from start, so every test after
 * one that evicted failed.
 */
class ResetStatEvictedKeysDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void resetstatZeroesEvictedKeys() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient r = new RawClient(port)) {
            for (int i = 0; i < 3; i++) {
                r.call("SET", "k" + i, "v");
            }
            out.add(text(r.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")));
            out.add(text(r.call("CONFIG", "SET", "maxmemory", "1"))); // evicts every key at once
            out.add(text(r.call("CONFIG", "SET", "maxmemory", "0")));
            out.add(evictedKeys(r));
            out.add(text(r.call("CONFIG", "RESETSTAT")));
            out.add(evictedKeys(r));
            out.add(text(r.call("CONFIG", "SET", "maxmemory-policy", "noeviction")));
        }
        return out;
    }

    private static String evictedKeys(RawClient r) throws Exception {
        for (String line : text(r.call("INFO", "stats")).split("\r\n")) {
            if (line.startsWith("evicted_keys:")) {
                return line;
            }
        }
        return "evicted_keys missing";
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
