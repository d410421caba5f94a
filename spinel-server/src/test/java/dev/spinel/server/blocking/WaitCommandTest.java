package dev.spinel.server.blocking;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static dev.spinel.server.blocking.BlockingTestSupport.awaitBlocked;
import static dev.spinel.server.blocking.BlockingTestSupport.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * WAIT on a server without replicas blocks like Redis's (until its timeout, for ever with 0) and is
 * ended by CLIENT UNBLOCK with the acknowledged count or the UNBLOCKED error. The replies that do not
 * need a second client are in diff/replication.redis.
 */
class WaitCommandTest {
    @Test
    void waitWithoutTimeoutBlocksUntilUnblocked() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient waiter = new RawClient(server.port());
             RawClient admin = new RawClient(server.port())) {
            String id = new String(waiter.call("CLIENT", "ID"), StandardCharsets.UTF_8).substring(1).trim();
            waiter.send(cmd("WAIT", "1", "0"));
            awaitBlocked(server.engine().blocking(), 1);
            assertEquals(":1\r\n", admin.callString("CLIENT", "UNBLOCK", id));
            assertEquals(":0\r\n", new String(waiter.readReply(), StandardCharsets.UTF_8));
            awaitBlocked(server.engine().blocking(), 0);

            waiter.send(cmd("WAIT", "2", "0"));
            awaitBlocked(server.engine().blocking(), 1);
            assertEquals(":1\r\n", admin.callString("CLIENT", "UNBLOCK", id, "ERROR"));
            assertEquals("-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n", new String(waiter.readReply(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void waitWithTimeoutAnswersZeroWhenItExpires() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient c = new RawClient(server.port())) {
            long start = System.nanoTime();
            assertEquals(":0\r\n", c.callString("WAIT", "1", "150"));
            long tookMillis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(true, tookMillis >= 140, "WAIT returned after " + tookMillis + " ms"); // it blocked
            assertEquals(0, server.engine().blocking().blockedClients());
        }
    }
}
