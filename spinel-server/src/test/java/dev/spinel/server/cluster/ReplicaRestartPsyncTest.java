package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cluster replica restarted from its RDB is a replica from the start (its nodes.conf says so, as Redis's
 * loadDataFromDisk asks clusterNodeIsSlave(myself)): it continues its primary's history, so it resumes with a
 * partial resync. It had taken the RDB's replication ID as a master would (replid2, a new ID of its own), and the
 * replay of its recovered Raft log promoted it on the way, so its PSYNC named an unknown history and every restart
 * cost a full resync (seen in Redis's legacy cluster test 17-diskless-load-swapdb).
 */
class ReplicaRestartPsyncTest {
    private static final int[] PRIMARIES = {22301, 22302, 22303};
    private static final int REPLICA = 22304;

    private static SpinelServer startReplica(Path dir) {
        return SpinelServer.start(ServerConfig.defaults().with("port", Integer.toString(REPLICA)).with("cluster-enabled", "yes")
                .with("dir", dir.toString()));
    }

    @Test
    void aRestartedReplicaResumesWithAPartialResync() throws Exception {
        SpinelServer[] nodes = ClusterNodes.create("restart-psync", PRIMARIES, i -> ServerConfig.defaults());
        SpinelServer replica = null;
        try {
            int primary = PRIMARIES[0]; // slot 0 (key "06S") is the first primary's, as redis-cli --cluster create splits
            String primaryId = ClusterNodes.call(primary, "CLUSTER", "MYID").split("\r\n")[1]; // a bulk string
            Path dir = Files.createTempDirectory("spinel-restart-psync-replica");
            replica = startReplica(dir);
            assertEquals("+OK\r\n", ClusterNodes.call(primary, "CLUSTER", "MEET", "127.0.0.1", Integer.toString(REPLICA)));
            ClusterNodes.awaitWholeCluster(REPLICA, 4);
            assertEquals("+OK\r\n", ClusterNodes.call(REPLICA, "CLUSTER", "REPLICATE", primaryId));
            assertEquals("+OK\r\n", ClusterNodes.call(primary, "SET", "06S", "1"));
            awaitReplicated(primary, "06S", "1");
            assertEquals("+OK\r\n", ClusterNodes.call(REPLICA, "SAVE"));
            replica.close();
            replica = null;
            assertEquals("+OK\r\n", ClusterNodes.call(primary, "SET", "06S", "2")); // in the backlog only
            Map<String, Long> before = stats(primary);
            replica = startReplica(dir);
            awaitReplicated(primary, "06S", "2");
            Map<String, Long> after = stats(primary);
            assertEquals(before.get("sync_full"), after.get("sync_full"), "a full resync after the restart");
            assertEquals(before.get("sync_partial_ok") + 1, after.get("sync_partial_ok"));
        } finally {
            if (replica != null) {
                replica.close();
            }
            ClusterNodes.closeAll(nodes);
        }
    }

    private static Map<String, Long> stats(int port) throws Exception {
        try (RawClient c = new RawClient(port)) {
            return c.infoNumbers("stats");
        }
    }

    /** Waits (30 s at most) until the replica's link is up and a READONLY GET of {@code key} answers {@code value}. */
    private static void awaitReplicated(int primary, String key, String value) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        String expected = "$" + value.length() + "\r\n" + value + "\r\n";
        while (true) {
            try (RawClient c = new RawClient(REPLICA)) {
                c.callString("READONLY");
                String info = c.callString("INFO", "replication");
                String got = c.callString("GET", key);
                if (info.contains("master_link_status:up") && got.equals(expected)) {
                    return;
                }
                assertTrue(System.currentTimeMillis() < deadline, "replica of " + primary + ": " + got + " " + info);
            } catch (java.io.IOException e) {
                assertTrue(System.currentTimeMillis() < deadline, e.toString());
            }
            Thread.sleep(100);
        }
    }
}
