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
 * used_memory stops counting a client's buffers as soon as the client is gone, as Redis frees them with it:
 * Redis's unit/maxmemory closes clients whose unread replies filled maxmemory and writes at once; Spinel kept
 * their last cron sample until the next tick and refused the write with OOM. The cron is paused here, so
 * only the client's departure can bring the figure down.
 */
class ClosedClientMemoryDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-debug-command", "yes");

    @Test
    void writesAcceptedOnceClientsHoldingTheMemoryLeft() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        List<RawClient> readers = new ArrayList<>();
        try (RawClient r = new RawClient(port)) {
            out.add(text(r.call("SET", "big", "x".repeat(1 << 20))));
            for (int i = 0; i < 5; i++) {
                RawClient c = new RawClient(port);
                readers.add(c);
                for (int j = 0; j < 40; j++) {
                    c.send(List.of(bytes("GET"), bytes("big"))); // never read
                }
            }
            Thread.sleep(1000);
            long used = field(r, "used_memory");
            long clients = field(r, "mem_clients_normal");
            out.add("clients hold over 2 MB: " + (clients > 2 << 20));
            out.add(text(r.call("CONFIG", "SET", "maxmemory", Long.toString(used - clients / 2))));
            out.add(text(r.call("SET", "k", "v")).substring(0, 4));
            out.add(text(r.call("DEBUG", "PAUSE-CRON", "1")));
            for (RawClient c : readers) {
                c.close();
            }
            Thread.sleep(500);
            out.add(text(r.call("SET", "k", "v")));
            out.add(text(r.call("DEBUG", "PAUSE-CRON", "0")));
            out.add(text(r.call("CONFIG", "SET", "maxmemory", "0")));
        } finally {
            for (RawClient c : readers) {
                c.close();
            }
        }
        return out;
    }

    private static long field(RawClient r, String name) throws Exception {
        for (String line : text(r.call("INFO", "memory")).split("\r\n")) {
            if (line.startsWith(name + ":")) {
                return Long.parseLong(line.substring(name.length() + 1));
            }
        }
        throw new AssertionError(name + " missing");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
