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
 * The invalidation of a key a tracking client changes itself inside MULTI/EXEC comes after EXEC's whole
 * reply, never inside its array, as in redis-server 7.0.15 (Redis's tracking unit, "Tracking invalidation
 * message is not interleaved with transaction response"); and before the reply of a command pipelined after it.
 */
class TrackingInTransactionDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void ownInvalidationFollowsTheExecReply() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            c.call("HELLO", "3");
            out.add(text(c.call("CLIENT", "TRACKING", "ON")));
            out.add(text(c.call("MSET", "a", "1", "b", "2")));
            out.add(text(c.call("GET", "a")));
            out.add(text(c.call("MULTI")));
            out.add(text(c.call("INCR", "a")));
            out.add(text(c.call("GET", "b")));
            out.add(text(c.call("EXEC")));
            out.add(text(c.readReply())); // the invalidation of a
            // pipelined: the invalidation comes between EXEC's reply and PING's
            out.add(text(c.call("GET", "a")));
            c.sendRaw(("*1\r\n$5\r\nMULTI\r\n*2\r\n$4\r\nINCR\r\n$1\r\na\r\n*1\r\n$4\r\nEXEC\r\n*1\r\n$4\r\nPING\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < 5; i++) {
                out.add(text(c.readReply()));
            }
        }
        return out;
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
