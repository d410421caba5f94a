package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static dev.spinel.server.testing.Await.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client blocked in WAIT is forgotten by the list of waiting clients however its wait ends: answered, timed out,
 * CLIENT UNBLOCK, its connection closed, or disconnected by a role change (REPLICAOF; the entries used to stay,
 * one per such client, for the server's life).
 */
class WaitForgottenTest {
    private static List<byte[]> args(String... a) {
        return java.util.Arrays.stream(a).map(x -> x.getBytes(StandardCharsets.UTF_8)).toList();
    }

    @Test
    void everyEndOfAWaitForgetsIt() throws Exception {
        try (RedisServerProcess master = RedisServerProcess.start();
             SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0"))) {
            ReplicaWaits waits = spinel.replication().handshake().waits();
            try (RawClient admin = new RawClient(spinel.port())) {
                try (RawClient timedOut = new RawClient(spinel.port())) {
                    assertEquals(":0\r\n", timedOut.callString("WAIT", "1", "50"));
                }
                assertEquals(0, waits.waiting(), "after a timeout");

                RawClient closed = new RawClient(spinel.port());
                closed.send(args("WAIT", "1", "0"));
                waitFor(() -> waits.waiting() == 1, "the WAIT blocked");
                closed.close();
                waitFor(() -> waits.waiting() == 0, "the closed client's WAIT forgotten");

                try (RawClient unblocked = new RawClient(spinel.port())) {
                    unblocked.send(args("CLIENT", "ID"));
                    String id = new String(unblocked.readReply(), StandardCharsets.UTF_8).substring(1).trim();
                    unblocked.send(args("WAIT", "1", "0"));
                    waitFor(() -> waits.waiting() == 1, "the WAIT blocked");
                    assertEquals(":1\r\n", admin.callString("CLIENT", "UNBLOCK", id, "ERROR"));
                    assertTrue(new String(unblocked.readReply(), StandardCharsets.UTF_8).startsWith("-UNBLOCKED"));
                }
                assertEquals(0, waits.waiting(), "after CLIENT UNBLOCK ERROR");

                try (RawClient roleChange = new RawClient(spinel.port())) {
                    roleChange.send(args("WAIT", "1", "0"));
                    waitFor(() -> waits.waiting() == 1, "the WAIT blocked");
                    assertEquals("+OK\r\n", admin.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port())));
                    assertTrue(new String(roleChange.readReply(), StandardCharsets.UTF_8).startsWith("-UNBLOCKED force unblock"));
                }
                assertEquals(0, waits.waiting(), "after the role change disconnected the client");
            }
        }
    }
}
