package dev.spinel.server.engine;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis 7.0's unit/pubsub "PUBLISH/SUBSCRIBE after UNSUBSCRIBE without arguments": a subscriber sends
 * UNSUBSCRIBE without waiting for its answer, then another connection publishes and must count no receiver,
 * as Redis (one thread) executes the UNSUBSCRIBE that reached it first. With the two connections on
 * different event loops the PUBLISH used to run first about one time in three on a busy machine
 * ({@link CatchUpBarrier}).
 */
class PublishAfterUnsubscribeTest {
    private static final int TRIES = 300;

    @Test
    @Timeout(120)
    void aPublishAfterAnUnsubscribeThatWasSentFirstReachesNobody() throws Exception {
        ServerConfig config = ServerConfig.defaults().with("port", "0").with("event-loop-threads", "3");
        try (SpinelServer server = SpinelServer.start(config); RawClient publisher = new RawClient(server.port())) {
            int reached = 0;
            for (int i = 0; i < TRIES; i++) {
                try (RawClient subscriber = new RawClient(server.port())) {
                    subscriber.send(bytes("SUBSCRIBE", "chan1", "chan2", "chan3"));
                    for (int k = 0; k < 3; k++) {
                        subscriber.readReply();
                    }
                    subscriber.send(bytes("UNSUBSCRIBE"));
                    if (!publisher.callString("PUBLISH", "chan1", "hello").equals(":0\r\n")) {
                        reached++;
                    }
                }
            }
            assertEquals(0, reached, "PUBLISHes counted a subscriber whose UNSUBSCRIBE had been sent first");
        }
    }

    @Test
    @Timeout(60)
    void subscribersOnOtherLoopsStillGetEveryMessageInOrder() throws Exception {
        ServerConfig config = ServerConfig.defaults().with("port", "0").with("event-loop-threads", "3");
        try (SpinelServer server = SpinelServer.start(config); RawClient publisher = new RawClient(server.port());
             RawClient a = new RawClient(server.port()); RawClient b = new RawClient(server.port())) {
            a.call("SUBSCRIBE", "news");
            b.call("PSUBSCRIBE", "n*");
            assertEquals(":2\r\n", publisher.callString("PUBLISH", "news", "1"));
            // a pipeline is not held back, and keeps its order
            StringBuilder pipeline = new StringBuilder();
            for (int i = 2; i <= 50; i++) {
                pipeline.append(new String(RawClient.encode(bytes("PUBLISH", "news", String.valueOf(i))), StandardCharsets.UTF_8));
            }
            publisher.sendRaw(pipeline.toString().getBytes(StandardCharsets.UTF_8));
            for (int i = 2; i <= 50; i++) {
                assertEquals(":2\r\n", new String(publisher.readReply(), StandardCharsets.UTF_8));
            }
            for (int i = 1; i <= 50; i++) {
                String m = new String(a.readReply(), StandardCharsets.UTF_8);
                assertTrue(m.endsWith("$" + String.valueOf(i).length() + "\r\n" + i + "\r\n"), m);
                String p = new String(b.readReply(), StandardCharsets.UTF_8);
                assertTrue(p.endsWith("$" + String.valueOf(i).length() + "\r\n" + i + "\r\n"), p);
            }
        }
    }

    private static List<byte[]> bytes(String... args) {
        return Arrays.stream(args).map(s -> s.getBytes(StandardCharsets.UTF_8)).toList();
    }
}
