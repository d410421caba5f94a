package dev.spinel.server.engine;

import dev.spinel.server.engine.pubsub.PubSub;
import dev.spinel.store.ByteKey;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A SUBSCRIBE racing another client's UNSUBSCRIBE of the same channel is never lost: the other's
 * unsubscribe may drop the channel's (then empty) set of subscribers, and a subscription that added
 * itself to that set afterwards was registered nowhere (its client received nothing).
 */
class PubSubRaceTest {
    @Test
    @Timeout(60)
    void aSubscriptionRacingAnotherClientsUnsubscribeIsNeverLost() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0"))) {
            Engine engine = server.engine();
            PubSub<Session> pubSub = engine.pubSub();
            byte[] channel = "news".getBytes(StandardCharsets.US_ASCII);
            ByteKey name = new ByteKey(channel);
            Session mine = new Session(engine, 1, null);
            Session other = new Session(engine, 2, null);
            AtomicBoolean stop = new AtomicBoolean();
            Thread churn = Thread.ofPlatform().start(() -> {
                while (!stop.get()) {
                    pubSub.subscribe(PubSub.Kind.CHANNEL, name, other);
                    pubSub.unsubscribe(PubSub.Kind.CHANNEL, name, other);
                }
            });
            try {
                long deadline = System.nanoTime() + 3_000_000_000L;
                for (int round = 0; System.nanoTime() < deadline; round++) {
                    pubSub.subscribe(PubSub.Kind.CHANNEL, name, mine);
                    long count = pubSub.subscriberCount(PubSub.Kind.CHANNEL, channel);
                    if (count < 1) {
                        assertEquals(1, count, "the subscription was lost, round " + round);
                    }
                    pubSub.unsubscribe(PubSub.Kind.CHANNEL, name, mine);
                }
            } finally {
                stop.set(true);
                churn.join();
            }
        }
    }
}
