package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static dev.spinel.server.testing.Await.waitFor;

/**
 * A master that becomes a replica disconnects its blocked clients, as Redis's disconnectAllBlockedClients
 * (replication.tcl "BLPOP followed by role change, issue #2473"): a BLPOP left blocked would be served by the
 * new master's RPUSH on the replica alone, and the two datasets would differ. A redis-server and a Spinel node
 * are each turned into a replica of the same redis-server master with a BLPOP and a WAIT blocked on them; the
 * blocked clients' replies (byte for byte) and the replicas' lists are compared.
 */
class ReplicaofBlockedClientsTest {
    private record Outcome(String blpopReply, boolean blpopClosed, String waitReply, boolean waitClosed) {
    }

    private static Outcome becomeReplica(int port, int masterPort) throws Exception {
        try (RawClient admin = new RawClient(port); RawClient blpop = new RawClient(port); RawClient wait = new RawClient(port)) {
            blpop.send(args("BLPOP", "foo", "0"));
            wait.send(args("WAIT", "1", "0"));
            waitFor(() -> admin.callString("INFO", "clients").contains("blocked_clients:2"), "two blocked clients");
            assertEquals("+OK\r\n", admin.callString("REPLICAOF", "127.0.0.1", Integer.toString(masterPort)));
            String blpopReply = new String(blpop.readReply(), StandardCharsets.UTF_8);
            String waitReply = new String(wait.readReply(), StandardCharsets.UTF_8);
            boolean blpopClosed = blpop.isClosedByServer();
            boolean waitClosed = wait.isClosedByServer();
            waitFor(() -> admin.callString("INFO", "replication").contains("master_link_status:up"), "the link up");
            return new Outcome(blpopReply, blpopClosed, waitReply, waitClosed);
        }
    }

    @Test
    void blockedClientsAreDisconnectedWhenTheMasterBecomesAReplica() throws Exception {
        try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync-delay", "0");
             RedisServerProcess redis = RedisServerProcess.start();
             SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0"))) {
            Outcome expected = becomeReplica(redis.port(), master.port());
            Outcome got = becomeReplica(spinel.port(), master.port());
            assertTrue(expected.blpopReply().startsWith("-UNBLOCKED"), expected.blpopReply());
            assertEquals(expected, got);
            try (RawClient m = new RawClient(master.port()); RawClient r = new RawClient(redis.port());
                 RawClient s = new RawClient(spinel.port())) {
                m.callString("RPUSH", "foo", "a", "b", "c");
                String list = m.callString("LRANGE", "foo", "0", "-1");
                waitFor(() -> r.callString("LRANGE", "foo", "0", "-1").equals(list), "redis-server's replica has the list");
                waitFor(() -> s.callString("LRANGE", "foo", "0", "-1").equals(list), "Spinel's replica has the list");
                Thread.sleep(200); // a pop left behind would show now
                assertEquals(list, s.callString("LRANGE", "foo", "0", "-1"));
                assertEquals(m.callString("DEBUG", "DIGEST"), s.callString("DEBUG", "DIGEST"));
            }
        }
    }

    private static List<byte[]> args(String... a) {
        List<byte[]> l = new ArrayList<>();
        for (String s : a) {
            l.add(s.getBytes(StandardCharsets.UTF_8));
        }
        return l;
    }
}
