package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A blocking command sent under CLIENT REPLY OFF or SKIP: redis-server 7.0.15 drops its reply whether it
 * is served by another client's push, times out, or is ended by CLIENT UNBLOCK (the reply goes through
 * addReply, which a REPLY OFF/SKIP client does not get). Spinel wrote it (found by the adversary round,
 * 2026-11-28). Each case ends with CLIENT REPLY ON and an ECHO whose reply marks the end of its output.
 */
class BlockedReplyModeDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void timeoutUnderReplyOff() throws Exception {
        assertSame("OFF", "timeout");
    }

    @Test
    void timeoutUnderReplySkip() throws Exception {
        assertSame("SKIP", "timeout");
    }

    @Test
    void servedUnderReplyOff() throws Exception {
        assertSame("OFF", "served");
    }

    @Test
    void servedUnderReplySkip() throws Exception {
        assertSame("SKIP", "served");
    }

    @Test
    void unblockedUnderReplyOff() throws Exception {
        assertSame("OFF", "unblock");
    }

    private static void assertSame(String mode, String end) throws Exception {
        assertEquals(transcript(SERVERS.redis().port(), mode, end), transcript(SERVERS.spinel().port(), mode, end));
    }

    private static List<String> transcript(int port, String mode, String end) throws Exception {
        List<String> out = new ArrayList<>();
        String key = "blocked-" + mode + end;
        try (RawClient c = new RawClient(port); RawClient other = new RawClient(port)) {
            long id = Long.parseLong(new String(c.call("CLIENT", "ID"), StandardCharsets.US_ASCII).trim().substring(1));
            send(c, "CLIENT", "REPLY", mode);
            send(c, "BLPOP", key, end.equals("timeout") ? "0.2" : "10");
            if (end.equals("served")) {
                waitBlocked(other);
                other.call("RPUSH", key, "x");
            } else if (end.equals("unblock")) {
                waitBlocked(other);
                other.call("CLIENT", "UNBLOCK", String.valueOf(id), "ERROR");
            }
            send(c, "CLIENT", "REPLY", "ON");
            send(c, "ECHO", "end");
            while (true) {
                String frame = new String(c.readReply(), StandardCharsets.ISO_8859_1);
                out.add(frame);
                if (frame.equals("$3\r\nend\r\n")) {
                    return out;
                }
            }
        }
    }

    private static void waitBlocked(RawClient other) throws Exception {
        for (int i = 0; i < 500; i++) {
            String info = new String(other.call("INFO", "clients"), StandardCharsets.ISO_8859_1);
            if (info.contains("blocked_clients:1")) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the client never blocked");
    }

    private static void send(RawClient c, String... args) throws Exception {
        c.send(Arrays.stream(args).map(a -> a.getBytes(StandardCharsets.UTF_8)).toList());
    }
}
