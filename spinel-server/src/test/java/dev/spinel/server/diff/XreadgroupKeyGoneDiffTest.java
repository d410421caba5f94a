package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A client blocked in XREADGROUP whose stream is deleted, replaced by another type, flushed or swapped away
 * is answered at once with Redis's "UNBLOCKED the stream key no longer exists" (its group went with the
 * stream), counted in the error stats as Redis counts it; a plain XREAD keeps waiting until its timeout. Each case runs on Spinel and on redis-server.
 */
class XreadgroupKeyGoneDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static final List<List<String>> CHANGES = List.of(
            List.of("DEL mystream"),
            List.of("UNLINK mystream"),
            List.of("SET mystream val1"),
            List.of("MULTI", "DEL mystream", "SADD mystream e1", "EXEC"),
            List.of("FLUSHALL"),
            List.of("FLUSHDB"),
            List.of("SWAPDB 9 3"),
            List.of("XGROUP DESTROY mystream mygroup"),
            List.of("XADD mystream 667 f v"));

    @Test
    @Timeout(60)
    void blockedGroupReadersAreUnblockedWhenTheStreamGoes() throws Exception {
        List<String> diffs = new ArrayList<>();
        for (List<String> change : CHANGES) {
            String spinel = run(SERVERS.spinel().port(), change, true);
            String redis = run(SERVERS.redis().port(), change, true);
            if (!spinel.equals(redis)) {
                diffs.add(change + " XREADGROUP: spinel " + spinel + ", redis " + redis);
            }
        }
        String spinel = run(SERVERS.spinel().port(), List.of("DEL mystream"), false);
        String redis = run(SERVERS.redis().port(), List.of("DEL mystream"), false);
        if (!spinel.equals(redis)) {
            diffs.add("DEL, XREAD: spinel " + spinel + ", redis " + redis);
        }
        assertEquals(List.of(), diffs);
    }

    private static String run(int port, List<String> change, boolean group) throws Exception {
        try (RawClient c = new RawClient(port); RawClient blocked = new RawClient(port)) {
            c.call("SELECT", "9");
            c.call("FLUSHALL");
            c.call("CONFIG", "RESETSTAT");
            c.call("XADD", "mystream", "666", "f", "v");
            c.call("XGROUP", "CREATE", "mystream", "mygroup", "$");
            blocked.call("SELECT", "9");
            List<String> cmd = group
                    ? List.of("XREADGROUP", "GROUP", "mygroup", "Alice", "BLOCK", "1500", "STREAMS", "mystream", ">")
                    : List.of("XREAD", "BLOCK", "1500", "STREAMS", "mystream", "$");
            blocked.send(cmd.stream().map(a -> a.getBytes(StandardCharsets.UTF_8)).toList());
            long deadline = System.currentTimeMillis() + 5000;
            while (!c.callString("INFO", "clients").contains("blocked_clients:1") && System.currentTimeMillis() < deadline) {
                Thread.sleep(5);
            }
            for (String step : change) {
                c.call(step.split(" "));
            }
            long start = System.nanoTime();
            String reply = new String(blocked.readReply(), StandardCharsets.UTF_8);
            boolean waited = System.nanoTime() - start > 1_000_000_000L;
            // An entry's reply holds its ID, which is the same on both; the wait tells a timeout from an answer.
            StringBuilder errors = new StringBuilder();
            for (String line : c.callString("INFO", "errorstats").split("\r\n")) {
                if (line.startsWith("errorstat_")) {
                    errors.append(' ').append(line);
                }
            }
            for (String line : c.callString("INFO", "commandstats").split("\r\n")) {
                if (line.startsWith("cmdstat_xread")) {
                    errors.append(' ').append(line.replaceAll("usec=\\d+,usec_per_call=[0-9.]+,", ""));
                }
            }
            return reply.trim() + (waited ? " (after the timeout)" : " (at once)") + errors;
        }
    }
}
