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
 * Redis 7.0's unit/obuf-limits "Client output buffer soft limit is not enforced too early and is enforced when
 * no traffic": a subscriber left above the pubsub soft limit is closed once the soft seconds pass even though
 * nothing more is published to it (Redis's clientsCron checks the limits); Spinel checked only on a publish.
 */
class SoftLimitWithoutTrafficDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void subscriberOverSoftLimitClosedWithoutFurtherPublish() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient r = new RawClient(port); RawClient sub = new RawClient(port)) {
            out.add(text(r.call("CONFIG", "SET", "client-output-buffer-limit", "pubsub 0 100000 1")));
            out.add(text(sub.call("CLIENT", "SETNAME", "slow")));
            out.add(text(sub.call("SUBSCRIBE", "foo")));
            String message = "x".repeat(1000);
            long deadline = System.currentTimeMillis() + 10_000;
            boolean over = false;
            while (!over && System.currentTimeMillis() < deadline) {
                r.call("PUBLISH", "foo", message); // the subscriber never reads
                over = omem(text(r.call("CLIENT", "LIST"))) > 100_000;
            }
            out.add("over the soft limit: " + over);
            // nothing more is published: the soft limit's 1 s passes with the output still above it (Redis counts whole
            // seconds, more than 1 of them: up to 2 s, then its clientsCron's next look at the client; 1 s to spare)
            Thread.sleep(3000);
            out.add("still listed: " + text(r.call("CLIENT", "LIST")).contains("name=slow"));
            out.add(text(r.call("CONFIG", "SET", "client-output-buffer-limit", "pubsub 32mb 8mb 60")));
        }
        return out;
    }

    private static long omem(String clientList) {
        for (String line : clientList.split("\n")) {
            if (line.contains("name=slow")) {
                int i = line.indexOf(" omem=") + 6;
                return Long.parseLong(line.substring(i, line.indexOf(' ', i)));
            }
        }
        return -1;
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
