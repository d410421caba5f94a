package dev.spinel.server.commands;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** BGREWRITEAOF inside MULTI/EXEC answers Redis 7.0's "scheduled" (Redis starts it from its cron). */
class MultiPersistenceTest {
    @TempDir
    Path dir;

    @Test
    void bgrewriteaofInsideExecIsScheduled() throws Exception {
        ServerConfig config = ServerConfig.defaults().with("port", "0").with("dir", dir.toString());
        try (SpinelServer server = SpinelServer.start(config); RawClient c = new RawClient(server.port())) {
            c.call("MULTI");
            c.call("SET", "foo", "bar");
            c.call("BGREWRITEAOF");
            assertEquals("*2\r\n+OK\r\n+Background append only file rewriting scheduled\r\n", c.callString("EXEC"));
        }
    }
}
