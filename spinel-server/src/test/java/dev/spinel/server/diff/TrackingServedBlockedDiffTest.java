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
 * Redis 7.0's unit/tracking "Unblocked BLMOVE gets notification after response": a tracking client blocked
 * in BLMOVE, served when another client pushes, gets its reply first and then the invalidation of the
 * destination key it tracks (its own command changed it). Spinel sent the invalidation first.
 */
class TrackingServedBlockedDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void servedBlmoveRepliesBeforeItsOwnInvalidationAsRedis() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient r = new RawClient(port); RawClient rd = new RawClient(port)) {
            r.call("FLUSHALL");
            out.add(text(r.call("RPUSH", "list2", "a")));
            rd.call("HELLO", "3");
            out.add(text(rd.call("CLIENT", "TRACKING", "on")));
            out.add(text(rd.call("LRANGE", "list2", "0", "-1")));
            rd.send(List.of(b("BLMOVE"), b("list1"), b("list2"), b("left"), b("left"), b("0")));
            long deadline = System.currentTimeMillis() + 5000;
            while (!text(r.call("INFO", "clients")).contains("blocked_clients:1\r\n") && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            out.add(text(r.call("RPUSH", "list1", "foo")));
            out.add(text(rd.readReply()));
            out.add(text(rd.readReply()));
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
