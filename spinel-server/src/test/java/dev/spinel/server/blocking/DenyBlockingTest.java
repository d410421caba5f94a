package dev.spinel.server.blocking;

import dev.spinel.protocol.Args;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.ports.InternalConnection;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** Inside EXEC or a script (Session.denyBlocking) blocking commands answer at once, as Redis 7.0. */
class DenyBlockingTest {
    private static String run(Session s, String... args) {
        s.out().clear();
        s.engine().execute(s, Args.of(args));
        return new String(s.out().array(), 0, s.out().size(), StandardCharsets.UTF_8);
    }

    @Test
    void blockingCommandsDoNotBlockWhenDenied() {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0"))) {
            Session s = server.engine().open(new InternalConnection("test:0"));
            s.denyBlocking(true);
            assertEquals("*-1\r\n", run(s, "BLPOP", "deny", "0"));
            assertEquals("*-1\r\n", run(s, "BRPOP", "deny", "deny2", "1"));
            assertEquals("*-1\r\n", run(s, "BLMPOP", "0", "1", "deny", "LEFT"));
            assertEquals("$-1\r\n", run(s, "BLMOVE", "deny", "d", "LEFT", "LEFT", "0"));
            assertEquals("$-1\r\n", run(s, "BRPOPLPUSH", "deny", "d", "0"));
            assertFalse(s.suspended());
            assertEquals(0, server.engine().blocking().blockedClients());
            run(s, "RPUSH", "deny", "v");
            assertEquals("*2\r\n$4\r\ndeny\r\n$1\r\nv\r\n", run(s, "BLPOP", "deny", "0"));
            server.engine().close(s);
        }
    }
}
