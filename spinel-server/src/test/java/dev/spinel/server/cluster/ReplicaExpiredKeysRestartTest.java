package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static dev.spinel.server.cluster.ClusterFailoverTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A cluster replica restarted from an RDB whose keys have expired meanwhile keeps them (legacy cluster test
 * 14-consistency-check, "Slave expired keys is loaded when restarted: appendonly=no"): as Redis, a node that nodes.conf
 * names a replica loads as one (rdbLoad keeps expired keys when not iAmMaster()) and does not expire them itself; its
 * primary's DELs remove them once the primary expires them. Before, the load skipped them (DBSIZE 0 after the restart).
 */
class ReplicaExpiredKeysRestartTest {
    private static final int[] PRIMARIES = {22641, 22642, 22643};
    private static final int REPLICA = 22644;

    private static final int LONE = 22645;

    private static SpinelServer startLone(Path dir) {
        return SpinelServer.start(ServerConfig.defaults().with("port", Integer.toString(LONE)).with("cluster-enabled", "yes")
                .with("dir", dir.toString()));
    }

    private static SpinelServer startReplica(Path dir) {
        return SpinelServer.start(ServerConfig.defaults().with("port", Integer.toString(REPLICA)).with("cluster-enabled", "yes")
                .with("dir", dir.toString()));
    }

    @Test
    void aRestartedReplicaKeepsTheKeysItsFileHasExpired() throws Exception {
        SpinelServer[] nodes = ClusterNodes.create("expired-restart", PRIMARIES, i -> ServerConfig.defaults()
                .with("enable-debug-command", "yes"));
        SpinelServer replica = null;
        try {
            int primary = PRIMARIES[0]; // slot 0 (key "06S") is the first primary's, as redis-cli --cluster create splits
            String primaryId = ClusterNodes.call(primary, "CLUSTER", "MYID").split("\r\n")[1];
            Path dir = Files.createTempDirectory("spinel-expired-restart-replica");
            replica = startReplica(dir);
            assertEquals("+OK\r\n", ClusterNodes.call(primary, "CLUSTER", "MEET", "127.0.0.1", Integer.toString(REPLICA)));
            ClusterNodes.awaitWholeCluster(REPLICA, 4);
            assertEquals("+OK\r\n", ClusterNodes.call(REPLICA, "CLUSTER", "REPLICATE", primaryId));
            await("the replica never synced", 30_000,
                    () -> ClusterNodes.call(REPLICA, "INFO", "replication").contains("master_link_status:up"));
            assertEquals("+OK\r\n", ClusterNodes.call(primary, "SET", "06S", "v", "PX", "2000"));
            await("the key never reached the replica", 10_000, () -> ClusterNodes.call(REPLICA, "DBSIZE").equals(":1\r\n"));
            assertEquals("+OK\r\n", ClusterNodes.call(REPLICA, "SAVE"));
            replica.close();
            replica = null;
            assertEquals("+OK\r\n", ClusterNodes.call(primary, "DEBUG", "SET-ACTIVE-EXPIRE", "0")); // no DEL meanwhile
            Thread.sleep(2500); // the key is past its expiry, on the primary too (not deleted: nobody read it)

            replica = startReplica(dir);
            assertEquals(":1\r\n", ClusterNodes.call(REPLICA, "DBSIZE"), "the restarted replica dropped the expired key");
            Thread.sleep(500); // a few of the replica's cron ticks: it does not expire the key itself either
            assertEquals(":1\r\n", ClusterNodes.call(REPLICA, "DBSIZE"));

            assertEquals("+OK\r\n", ClusterNodes.call(primary, "DEBUG", "SET-ACTIVE-EXPIRE", "1"));
            await("the primary's DEL never reached the replica", 20_000,
                    () -> ClusterNodes.call(REPLICA, "DBSIZE").equals(":0\r\n"));
        } finally {
            if (replica != null) {
                replica.close();
            }
            ClusterNodes.closeAll(nodes);
        }
    }

    /**
     * A node whose nodes.conf says replica while its topology (the recovered Raft log) says primary drops the replica
     * role it loaded with: its expired keys are then expired as a primary's (they stayed for good before the fix).
     */
    @Test
    void aNodeTheTopologyMakesAPrimaryExpiresItsKeysAgain() throws Exception {
        Path dir = Files.createTempDirectory("spinel-expired-restart-lone");
        SpinelServer node = startLone(dir);
        try {
            assertEquals("+OK\r\n", ClusterNodes.call(LONE, "CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
            await("the cluster never came up", 10_000, () -> ClusterNodes.call(LONE, "CLUSTER", "INFO").contains("cluster_state:ok"));
            assertEquals("+OK\r\n", ClusterNodes.call(LONE, "SET", "k", "v", "PX", "1500"));
            assertEquals("+OK\r\n", ClusterNodes.call(LONE, "SAVE"));
            node.close();
            node = null;
            Path conf = dir.resolve("nodes.conf");
            String text = Files.readString(conf);
            Files.writeString(conf, text.replace(" myself,master - ", " myself,slave " + "f".repeat(40) + " "));
            Thread.sleep(2000); // past the key's expiry
            node = startLone(dir);
            await("the key past its expiry never expired", 10_000, () -> ClusterNodes.call(LONE, "DBSIZE").equals(":0\r\n"));
            assertEquals("master", ClusterNodes.call(LONE, "ROLE").split("\r\n")[2]);
        } finally {
            if (node != null) {
                node.close();
            }
        }
    }
}
