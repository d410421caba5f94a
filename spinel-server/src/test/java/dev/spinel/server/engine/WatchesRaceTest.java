package dev.spinel.server.engine;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A WATCH registered while another session drops its watch of the same key must not be lost: the
 * other's unwatchAll may remove the (then empty) set of watchers from the registry, and a registration
 * that added itself to that set afterwards was gone, so a later write failed no EXEC (a lost update,
 * seen once by TransactionAtomicityTest under load).
 */
class WatchesRaceTest {
    @Test
    @Timeout(60)
    void aWatchRacingAnotherSessionsUnwatchIsNeverLost() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0"))) {
            Engine engine = server.engine();
            Watches watches = new Watches(engine.keyspace());
            byte[] key = "acct".getBytes(StandardCharsets.US_ASCII);
            Session mine = new Session(engine, 1, null);
            Session other = new Session(engine, 2, null);
            AtomicBoolean stop = new AtomicBoolean();
            Thread churn = Thread.ofPlatform().start(() -> {
                while (!stop.get()) {
                    watches.watch(other, 0, key, false);
                    watches.unwatchAll(other);
                }
            });
            try {
                long deadline = System.nanoTime() + 3_000_000_000L;
                int rounds = 0;
                while (System.nanoTime() < deadline) {
                    watches.watch(mine, 0, key, false);
                    watches.touch(0, key);
                    assertTrue(mine.watch().dirty(), "the write after WATCH was not seen, round " + rounds);
                    watches.unwatchAll(mine);
                    rounds++;
                }
            } finally {
                stop.set(true);
                churn.join();
            }
        }
    }
}
