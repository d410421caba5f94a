package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cluster node restarted on the same directory is the same node: its id from nodes.conf, its slots and
 * epoch from its Raft log, and nodes.conf rewritten as Redis keeps it.
 */
class ClusterRestartTest {
    private static SpinelServer start(Path dir) {
        return SpinelServer.start(ServerConfig.defaults().with("port", "22501").with("cluster-enabled", "yes")
                .with("cluster-port", "22511").with("dir", dir.toString()));
    }

    private static String call(RawClient c, String... args) throws Exception {
        return new String(c.call(args), StandardCharsets.UTF_8);
    }

    @Test
    void aRestartedNodeKeepsItsIdAndSlots() throws Exception {
        Path dir = Files.createTempDirectory("spinel-cluster-restart");
        String id;
        try (SpinelServer s = start(dir); RawClient c = new RawClient(22501)) {
            id = call(c, "CLUSTER", "MYID");
            assertEquals("+OK\r\n", call(c, "CLUSTER", "ADDSLOTSRANGE", "0", "99"));
            assertEquals("+OK\r\n", call(c, "CLUSTER", "SET-CONFIG-EPOCH", "7"));
        }
        String conf = Files.readString(dir.resolve("nodes.conf"));
        assertTrue(conf.contains(" myself,master - 0 0 7 connected 0-99\n"), conf);
        assertTrue(conf.endsWith("vars currentEpoch 7 lastVoteEpoch 0\n"), conf);
        try (SpinelServer s = start(dir); RawClient c = new RawClient(22501)) {
            assertEquals(id, call(c, "CLUSTER", "MYID"));
            long deadline = System.currentTimeMillis() + 20_000;
            String nodes;
            while (!(nodes = call(c, "CLUSTER", "NODES")).contains(" 7 connected 0-99\n")) {
                assertTrue(System.currentTimeMillis() < deadline, nodes);
                Thread.sleep(50);
            }
            assertEquals("+OK\r\n", call(c, "CLUSTER", "ADDSLOTS", "100"));
            assertTrue(call(c, "CLUSTER", "NODES").contains(" 7 connected 0-100\n"));
        }
    }
}
