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
 * DEBUG POPULATE (used by test suites and benchmark set-ups to fill a database quickly) against
 * redis-server with {@code enable-debug-command yes} on both: replies, key names, values, skipped
 * existing keys, size padding and the argument errors must match byte for byte.
 */
class DebugPopulateDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-debug-command", "yes");

    private static final List<List<String>> SCRIPT = List.of(
            List.of("FLUSHALL"),
            List.of("SET", "key:3", "mine"),
            List.of("DEBUG", "POPULATE", "10"),
            List.of("DBSIZE"),
            List.of("GET", "key:0"),
            List.of("GET", "key:3"),
            List.of("GET", "key:9"),
            List.of("EXISTS", "key:10"),
            List.of("DEBUG", "POPULATE", "5", "p"),
            List.of("GET", "p:4"),
            List.of("DEBUG", "POPULATE", "3", "sz", "4"),
            List.of("GET", "sz:2"),
            List.of("DEBUG", "POPULATE", "3", "pad", "12"),
            List.of("GET", "pad:1"),
            List.of("STRLEN", "pad:1"),
            List.of("DEBUG", "POPULATE", "2", "", "0"),
            List.of("GET", ":1"),
            List.of("DEBUG", "POPULATE", "0"),
            List.of("DBSIZE"),
            List.of("DEBUG", "POPULATE", "-1"),
            List.of("DEBUG", "POPULATE", "abc"),
            List.of("DEBUG", "POPULATE", "1", "x", "-3"),
            List.of("DEBUG", "POPULATE", "1", "x", "y"),
            List.of("DEBUG", "POPULATE"),
            List.of("DEBUG", "POPULATE", "1", "x", "1", "extra"),
            List.of("SELECT", "3"),
            List.of("DEBUG", "POPULATE", "1000", "k", "8"),
            List.of("DBSIZE"),
            List.of("GET", "k:999"),
            List.of("SELECT", "0"),
            List.of("DBSIZE"),
            List.of("OBJECT", "ENCODING", "key:5"),
            List.of("TYPE", "key:5"));

    @Test
    void populateAnswersLikeRedis() throws Exception {
        try (RawClient s = new RawClient(SERVERS.spinel().port()); RawClient r = new RawClient(SERVERS.redis().port())) {
            List<String> diffs = new ArrayList<>();
            for (List<String> cmd : SCRIPT) {
                List<byte[]> args = cmd.stream().map(a -> a.getBytes(StandardCharsets.ISO_8859_1)).toList();
                String a = new String(s.call(args), StandardCharsets.ISO_8859_1);
                String b = new String(r.call(args), StandardCharsets.ISO_8859_1);
                if (!a.equals(b)) {
                    diffs.add(cmd + "\n  spinel: " + a.replace("\r\n", "\\r\\n") + "\n  redis:  " + b.replace("\r\n", "\\r\\n"));
                }
            }
            assertEquals(List.of(), diffs);
        }
    }
}
