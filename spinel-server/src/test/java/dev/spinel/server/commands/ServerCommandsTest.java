package dev.spinel.server.commands;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.commands.server.MemoryUsage;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What differential scripts cannot reach: DEBUG when enabled, SHUTDOWN actually stopping the server. */
class ServerCommandsTest {
    @Test
    void debugWhenEnabled() throws Exception {
        ServerConfig config = ServerConfig.defaults().with("port", "0").with("enable-debug-command", "yes");
        try (SpinelServer server = SpinelServer.start(config); RawClient c = new RawClient(server.port())) {
            assertEquals("+OK\r\n", c.callString("DEBUG", "LOG", "hello from a test"));
            long start = System.nanoTime();
            assertEquals("+OK\r\n", c.callString("DEBUG", "SLEEP", "0.2"));
            assertTrue(System.nanoTime() - start >= 190_000_000L);
            assertEquals("+OK\r\n", c.callString("DEBUG", "SLEEP", "abc"));
            assertEquals("-ERR unknown subcommand or wrong number of arguments for 'nosuch'. Try DEBUG HELP.\r\n",
                    c.callString("DEBUG", "nosuch"));
            assertEquals("-ERR unknown subcommand or wrong number of arguments for 'sleep'. Try DEBUG HELP.\r\n",
                    c.callString("DEBUG", "sleep", "1", "2"));
            assertTrue(c.callString("DEBUG", "HELP").startsWith("*53\r\n+DEBUG <subcommand>"));
        }
    }

    @Test
    void debugLocalAllowsLoopback() throws Exception {
        ServerConfig config = ServerConfig.defaults().with("port", "0").with("enable-debug-command", "local");
        try (SpinelServer server = SpinelServer.start(config); RawClient c = new RawClient(server.port())) {
            assertEquals("+OK\r\n", c.callString("DEBUG", "SLEEP", "0"));
        }
    }

    @Test
    void protectedConfigsWhenEnabled() throws Exception {
        ServerConfig config = ServerConfig.defaults().with("port", "0").with("enable-protected-configs", "yes");
        try (SpinelServer server = SpinelServer.start(config); RawClient c = new RawClient(server.port())) {
            assertEquals("+OK\r\n", c.callString("CONFIG", "SET", "dbfilename", "other.rdb"));
            assertEquals("-ERR CONFIG SET failed (possibly related to argument 'dbfilename') - dbfilename can't be a path, just a filename\r\n",
                    c.callString("CONFIG", "SET", "dbfilename", "a/b.rdb"));
        }
    }

    @Test
    void shutdownNosaveStopsTheServer() throws Exception {
        SpinelServer server = SpinelServer.startEphemeral();
        try (RawClient c = new RawClient(server.port())) {
            c.send(List.of("SHUTDOWN".getBytes(), "NOSAVE".getBytes()));
            CompletableFuture.runAsync(() -> {
                try {
                    server.awaitClose();
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            }).get(10, TimeUnit.SECONDS);
            assertTrue(server.isClosed());
            assertTrue(c.isClosedByServer());
        } finally {
            server.close();
        }
    }

    @Test
    void shutdownSavesWhenSavePointsAreConfigured(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("dir", dir.toString()).with("save", "900 1"));
             RawClient c = new RawClient(server.port())) {
            c.call("SET", "k", "v");
            c.send(List.of("SHUTDOWN".getBytes()));
            awaitClose(server);
        }
        assertTrue(Files.size(dir.resolve("dump.rdb")) > 0);
    }

    @Test
    void shutdownRefusesWhenTheSaveFailsUnlessForced(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("dir", dir.toString()).with("save", "900 1"));
             RawClient c = new RawClient(server.port())) {
            // A directory where the snapshot file should go makes every save fail.
            Files.createDirectories(dir.resolve("dump.rdb"));
            assertEquals("-ERR Errors trying to SHUTDOWN. Check logs.\r\n", c.callString("SHUTDOWN"));
            assertEquals("-ERR Errors trying to SHUTDOWN. Check logs.\r\n", c.callString("SHUTDOWN", "SAVE"));
            assertEquals("+PONG\r\n", c.callString("PING"));
            c.send(List.of("SHUTDOWN".getBytes(), "FORCE".getBytes()));
            awaitClose(server);
        }
    }

    @Test
    void shutdownNosaveSkipsTheSnapshot(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("dir", dir.toString()).with("save", "900 1"));
             RawClient c = new RawClient(server.port())) {
            c.call("SET", "k", "v");
            c.send(List.of("SHUTDOWN".getBytes(), "NOSAVE".getBytes()));
            awaitClose(server);
            assertTrue(server.persistence().saveOnShutdown(), "the SIGTERM hook must not save after NOSAVE");
        }
        assertTrue(!Files.exists(dir.resolve("dump.rdb")));
    }

    private static void awaitClose(SpinelServer server) throws Exception {
        CompletableFuture.runAsync(() -> {
            try {
                server.awaitClose();
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        }).get(10, TimeUnit.SECONDS);
    }

    @Test
    void memoryUsageSizeClasses() {
        assertEquals(8, MemoryUsage.jemalloc(1));
        assertEquals(16, MemoryUsage.jemalloc(9));
        assertEquals(128, MemoryUsage.jemalloc(128));
        assertEquals(160, MemoryUsage.jemalloc(129));
        assertEquals(1024, MemoryUsage.jemalloc(1006));
        assertEquals(1280, MemoryUsage.jemalloc(1025));
        // SET foo bar in Redis 7.0.15: MEMORY USAGE foo = 56? No: jemalloc has no 24-byte class, so 64.
        assertEquals(64, MemoryUsage.of("foo".getBytes(), "bar".getBytes()));
        assertEquals(48, MemoryUsage.of("n".getBytes(), "123".getBytes()));
    }
}
