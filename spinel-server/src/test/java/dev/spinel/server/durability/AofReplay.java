package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The steps the append-only-log tests share: a Spinel that logs every write (appendfsync always) in a
 * directory, the text of its incremental logs, and the check that Spinel restarted from that directory
 * and a real redis-server loading it both show the state that was written.
 */
final class AofReplay {
    /** Reads the state a test compares, the same way on both servers. */
    @FunctionalInterface
    interface State {
        String read(RawClient c) throws Exception;
    }

    private AofReplay() {
    }

    static SpinelServer startLogging(Path dir) {
        return SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", "yes").with("appendfsync", "always"));
    }

    /** Every incremental log file's text, in name order (ISO-8859-1: one char per byte). */
    static String incrLogs(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir.resolve("appendonlydir"))) {
            StringBuilder all = new StringBuilder();
            for (Path p : files.filter(p -> p.toString().endsWith(".incr.aof")).sorted().toList()) {
                all.append(Files.readString(p, StandardCharsets.ISO_8859_1));
            }
            return all.toString();
        }
    }

    /** Spinel restarted from {@code dir}, then redis-server loading it, both show {@code expected}. */
    static void assertBothReplay(Path dir, String expected, State state) throws Exception {
        try (SpinelServer s = startLogging(dir); RawClient c = new RawClient(s.port())) {
            assertEquals(expected, state.read(c), "Spinel restarted from the log");
        }
        try (RedisServerProcess redis = RedisServerProcess.start("--dir", dir.toString(), "--appendonly", "yes");
             RawClient c = new RawClient(redis.port())) {
            AofTest.awaitLoaded(c);
            assertEquals(expected, state.read(c), "redis-server loading the log");
        }
    }
}
