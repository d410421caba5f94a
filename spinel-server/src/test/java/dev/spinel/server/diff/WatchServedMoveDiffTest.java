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
 * Redis 7.0's unit/type/list "PUSH resulting from BRPOPLPUSH affect WATCH": a client blocked in BRPOPLPUSH (or
 * BLMOVE), served by another client's LPUSH, pushes into its destination, which a third client WATCHes: that
 * client's EXEC is aborted. Since a served BRPOPLPUSH is propagated as RPOPLPUSH (no longer LMOVE) Spinel signalled
 * only its source, so the EXEC ran.
 */
class WatchServedMoveDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void aServedBrpoplpushOrBlmoveTouchesItsDestinationAsRedis() throws Exception {
        for (List<String> blocking : List.of(List.of("BRPOPLPUSH", "src{t}", "dst{t}", "0"),
                List.of("BLMOVE", "src{t}", "dst{t}", "RIGHT", "LEFT", "0"))) {
            assertEquals(transcript(SERVERS.redis().port(), blocking), transcript(SERVERS.spinel().port(), blocking),
                    blocking.get(0));
        }
    }

    private static List<String> transcript(int port, List<String> blocking) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient r = new RawClient(port); RawClient blocked = new RawClient(port); RawClient watching = new RawClient(port)) {
            r.call("FLUSHALL");
            out.add(text(r.call("SET", "somekey{t}", "somevalue")));
            blocked.send(blocking.stream().map(WatchServedMoveDiffTest::b).toList());
            long deadline = System.currentTimeMillis() + 5000;
            while (!text(r.call("INFO", "clients")).contains("blocked_clients:1\r\n") && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            out.add(text(watching.call("WATCH", "dst{t}")));
            out.add(text(watching.call("MULTI")));
            out.add(text(watching.call("GET", "somekey{t}")));
            out.add(text(r.call("LPUSH", "src{t}", "element")));
            out.add(text(blocked.readReply()));
            out.add(text(watching.call("EXEC"))); // aborted: the served command pushed into dst{t}
            out.add(text(r.call("LRANGE", "dst{t}", "0", "-1")));
            r.call("FLUSHALL");
        }
        return out;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
