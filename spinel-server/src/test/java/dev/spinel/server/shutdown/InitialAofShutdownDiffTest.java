package dev.spinel.server.shutdown;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.spinel.server.testing.Await.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A shutdown while the log switched on by CONFIG SET appendonly yes still writes its first base is refused, as Redis
 * 7.0.15 refuses it ("Writing initial AOF, can't exit.": the dataset is in no file yet); FORCE exits anyway.
 */
class InitialAofShutdownDiffTest {
    @TempDir
    Path dir;

    private static List<String> scenario(RawClient c) throws Exception {
        List<String> seen = new ArrayList<>();
        seen.add(c.callString("SET", "k", "v"));
        seen.add(c.callString("CONFIG", "SET", "rdb-key-save-delay", "30000000")); // 30 s for the one key
        seen.add(c.callString("CONFIG", "SET", "appendonly", "yes"));
        waitFor(() -> c.callString("INFO", "persistence").contains("aof_rewrite_in_progress:1"), "the initial rewrite");
        seen.add(c.callString("SHUTDOWN"));
        seen.add(c.callString("SHUTDOWN", "NOSAVE"));
        seen.add(c.callString("PING"));
        c.send(List.of("SHUTDOWN".getBytes(), "NOSAVE".getBytes(), "FORCE".getBytes()));
        seen.add("closed " + c.isClosedByServer(30_000));
        return seen;
    }

    @Test
    @Timeout(60)
    void aShutdownDuringTheInitialAofRewriteIsRefusedUnlessForced() throws Exception {
        List<String> redisSeen;
        try (RedisServerProcess redis = RedisServerProcess.start(); RawClient c = new RawClient(redis.port())) {
            redisSeen = scenario(c);
        }
        SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("save", "").with("appendonly", "no"));
        try (RawClient c = new RawClient(spinel.port())) {
            assertEquals(redisSeen, scenario(c));
            waitFor(spinel::isClosed, "the server to close after SHUTDOWN NOSAVE FORCE"); // the connection closes first
        } finally {
            spinel.close();
        }
    }
}
