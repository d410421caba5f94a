package dev.spinel.server.diff;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * DEBUG SLEEP leaves the whole server unresponsive for its duration, as redis-server's one thread sleeping: a client
 * on another event loop gets no answer meanwhile, then its answer. Redis's unit/dump "MIGRATE timeout actually
 * works" makes a MIGRATE target unresponsive so (it got OK from Spinel, whose sleep held only the caller's loop).
 */
class DebugSleepHoldsEveryLoopDiffTest {

    @Test
    @Timeout(60)
    void noClientIsAnsweredWhileTheServerSleeps() throws Exception {
        List<String> expected;
        try (RedisServerProcess redis = RedisServerProcess.start("--enable-debug-command", "yes");
             RedisServerProcess source = RedisServerProcess.start()) {
            expected = transcript(redis.port(), source.port());
        }
        try (SpinelServer target = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("enable-debug-command", "yes").with("event-loop-threads", "2"));
             SpinelServer source = SpinelServer.start(ServerConfig.defaults().with("port", "0"))) {
            assertEquals(expected, transcript(target.port(), source.port()));
        }
    }

    /** Clients of {@code target} while it sleeps; then {@code source} migrates a key to it while it sleeps. */
    private static List<String> transcript(int target, int source) throws Exception {
        List<String> out = new ArrayList<>();
        // two loops, connections dealt out in turn: sleeper and other are on different loops
        try (RawClient sleeper = new RawClient(target); RawClient other = new RawClient(target);
             RawClient migrator = new RawClient(source)) {
            out.add(sleeper.callString("PING"));
            out.add(other.callString("PING"));
            for (int round = 0; round < 2; round++) {
                sleeper.send(List.of("DEBUG".getBytes(), "SLEEP".getBytes(), "1.5".getBytes()));
                Thread.sleep(100); // the sleep has begun
                other.setReadTimeout(500);
                other.send(List.of("PING".getBytes()));
                boolean answered;
                try {
                    out.add("answered while asleep: " + new String(other.readReply()));
                    answered = true;
                } catch (SocketTimeoutException e) {
                    out.add("no answer while asleep");
                    answered = false;
                }
                other.setReadTimeout(10_000);
                out.add("sleep: " + new String(sleeper.readReply()));
                if (!answered) {
                    out.add("after: " + new String(other.readReply()));
                }
            }
            migrator.callString("SET", "key", "v");
            sleeper.send(List.of("DEBUG".getBytes(), "SLEEP".getBytes(), "1.0".getBytes()));
            Thread.sleep(100);
            String migrated = migrator.callString("MIGRATE", "127.0.0.1", Integer.toString(target), "key", "9", "500");
            out.add(migrated.startsWith("-IOERR") ? "MIGRATE timed out" : "MIGRATE answered " + migrated);
            sleeper.readReply();
        }
        return out;
    }
}
