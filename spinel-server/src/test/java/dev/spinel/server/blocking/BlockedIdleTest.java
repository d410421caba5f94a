package dev.spinel.server.blocking;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The idle-client {@code timeout} does not close a client that is blocked (Redis skips blocked clients). */
class BlockedIdleTest {
    @Test
    void blockedClientOutlivesTheIdleTimeout() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("timeout", "1"));
             RawClient c = new RawClient(server.port())) {
            c.send(List.of("BLPOP".getBytes(), "idle".getBytes(), "2.5".getBytes()));
            assertEquals("*-1\r\n", new String(c.readReply(), StandardCharsets.UTF_8));
        }
    }
}
