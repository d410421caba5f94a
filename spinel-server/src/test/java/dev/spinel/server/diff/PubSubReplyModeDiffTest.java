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
 * A subscriber that turned replies off (CLIENT REPLY OFF) or skipped one (SKIP) still gets its
 * subscription confirmations and its messages, on RESP2 and RESP3, as redis-server 7.0.15 sends them
 * (pushes are not replies there: CLIENT_PUSHING); only the replies proper are dropped. Each step ends with
 * a SUBSCRIBE to a fresh sentinel channel, whose confirmation is always sent, so the reading knows where
 * the step's output ends.
 */
class PubSubReplyModeDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void resp2ReplyOff() throws Exception {
        assertSame(2, "OFF");
    }

    @Test
    void resp2ReplySkip() throws Exception {
        assertSame(2, "SKIP");
    }

    @Test
    void resp3ReplyOff() throws Exception {
        assertSame(3, "OFF");
    }

    @Test
    void resp3ReplySkip() throws Exception {
        assertSame(3, "SKIP");
    }

    private static void assertSame(int protocol, String mode) throws Exception {
        assertEquals(transcript(SERVERS.redis().port(), protocol, mode), transcript(SERVERS.spinel().port(), protocol, mode));
    }

    private static List<String> transcript(int port, int protocol, String mode) throws Exception {
        List<String> out = new ArrayList<>();
        String ch = "ch-" + protocol + mode;
        try (RawClient sub = new RawClient(port); RawClient pub = new RawClient(port)) {
            sub.call("HELLO", String.valueOf(protocol)); // the server's own details differ: not compared
            Step step = new Step(sub, out);
            step.run(new String[]{"CLIENT", "REPLY", mode}, new String[]{"SUBSCRIBE", ch, ch + "b"});
            out.add(new String(pub.call("PUBLISH", ch, "hi"), StandardCharsets.ISO_8859_1));
            step.run();
            step.run(new String[]{"PSUBSCRIBE", ch + "*"});
            out.add(new String(pub.call("PUBLISH", ch + "x", "there"), StandardCharsets.ISO_8859_1));
            step.run(new String[]{"PING"});
            step.run(new String[]{"UNSUBSCRIBE", ch}, new String[]{"PING", "after"});
            if (protocol == 3) {
                // published by the subscriber itself: the message is sent, PUBLISH's own reply is not
                step.run(new String[]{"PUBLISH", ch + "b", "self"}, new String[]{"GET", "k"});
                step.run(new String[]{"CLIENT", "REPLY", "SKIP"}, new String[]{"PUBLISH", ch + "b", "self2"},
                        new String[]{"ECHO", "shown"});
            }
            // named, as Redis's order of a bare UNSUBSCRIBE follows its hash table's seed; then a bare one
            // for the last channel left
            List<String> all = new ArrayList<>(List.of("UNSUBSCRIBE", ch + "b"));
            for (int i = 1; i <= step.sentinels; i++) {
                all.add("sentinel-" + i);
            }
            step.run(new String[]{"PUNSUBSCRIBE"}, all.toArray(new String[0]));
            sub.send(List.of("UNSUBSCRIBE".getBytes(StandardCharsets.US_ASCII)));
            out.add(new String(sub.readReply(), StandardCharsets.ISO_8859_1));
        }
        return out;
    }

    /** Sends commands and a sentinel SUBSCRIBE, then reads every frame up to the sentinel's confirmation. */
    private static final class Step {
        private final RawClient client;
        private final List<String> out;
        private int sentinels;

        Step(RawClient client, List<String> out) {
            this.client = client;
            this.out = out;
        }

        void run(String[]... commands) throws Exception {
            String sentinel = "sentinel-" + (++sentinels);
            for (String[] c : commands) {
                client.send(Arrays.stream(c).map(a -> a.getBytes(StandardCharsets.UTF_8)).toList());
            }
            client.send(List.of("SUBSCRIBE".getBytes(StandardCharsets.US_ASCII), sentinel.getBytes(StandardCharsets.US_ASCII)));
            String marker = "\r\n$" + sentinel.length() + "\r\n" + sentinel + "\r\n";
            while (true) {
                String frame = new String(client.readReply(), StandardCharsets.ISO_8859_1);
                out.add(frame);
                if (frame.contains("subscribe") && frame.contains(marker)) {
                    return;
                }
            }
        }
    }
}
