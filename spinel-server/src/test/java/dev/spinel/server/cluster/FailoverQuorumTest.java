package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;

import static dev.spinel.server.cluster.ClusterFailoverTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis's quorum for an automatic failover (legacy cluster test 11-manual-takeover): a majority of the primaries
 * serving slots must take part. Three primaries with a replica each, two primaries stopped: the Raft group (four of
 * six nodes) still commits, but no replica is promoted within three node timeouts, as in Redis, where the one
 * primary left cannot outvote the two dead ones. CLUSTER FAILOVER TAKEOVER on the two replicas then brings the
 * cluster back, as the legacy test expects.
 */
class FailoverQuorumTest {
    private static final int[] PRIMARIES = {21631, 21632, 21633};
    private static final int[] REPLICAS = {21634, 21635, 21636};
    private static final long TIMEOUT = 2000;

    private SpinelServer[] primaries;
    private final SpinelServer[] replicas = new SpinelServer[REPLICAS.length];

    @AfterEach
    void tearDown() {
        ClusterNodes.closeAll(replicas);
        ClusterNodes.closeAll(primaries);
    }

    private static ServerConfig config() {
        return ServerConfig.defaults().with("cluster-node-timeout", Long.toString(TIMEOUT));
    }

    private static String call(int port, String... args) {
        try {
            return ClusterNodes.call(port, args);
        } catch (IOException down) {
            return "";
        }
    }

    private static boolean isMaster(int port) {
        return call(port, "INFO", "replication").contains("role:master\r\n");
    }

    @Test
    @Timeout(240)
    void noReplicaIsPromotedWithoutAMajorityOfPrimariesButTakeoverWorks() throws Exception {
        primaries = ClusterNodes.create("quorum", PRIMARIES, i -> config());
        for (int i = 0; i < REPLICAS.length; i++) {
            replicas[i] = ClusterNodes.startNode("quorum-replica-" + i, REPLICAS[i], config());
            assertEquals("+OK\r\n", call(PRIMARIES[0], "CLUSTER", "MEET", "127.0.0.1", Integer.toString(REPLICAS[i])));
            int port = REPLICAS[i];
            int known = PRIMARIES.length + i + 1;
            await("replica " + port + " never joined", 60_000, () -> call(port, "CLUSTER", "INFO").contains("cluster_known_nodes:" + known));
        }
        for (int i = 0; i < REPLICAS.length; i++) {
            String primaryId = call(PRIMARIES[i], "CLUSTER", "MYID").split("\r\n")[1];
            assertEquals("+OK\r\n", call(REPLICAS[i], "CLUSTER", "REPLICATE", primaryId));
        }
        for (int port : REPLICAS) {
            await("replica " + port + " never synced", 30_000, () -> call(port, "INFO", "replication").contains("master_link_status:up"));
        }

        // two of the three primaries stop at once: the Raft group keeps four of its six members
        Thread[] stops = new Thread[2];
        for (int i = 0; i < stops.length; i++) {
            SpinelServer s = primaries[i];
            primaries[i] = null;
            stops[i] = Thread.ofVirtual().start(s::close);
        }
        for (Thread t : stops) {
            t.join();
        }
        await("the cluster never reported itself down", 30_000,
                () -> call(PRIMARIES[2], "CLUSTER", "INFO").contains("cluster_state:fail\r\n"));
        long until = System.currentTimeMillis() + 3 * TIMEOUT;
        while (System.currentTimeMillis() < until) {
            assertTrue(!isMaster(REPLICAS[0]) && !isMaster(REPLICAS[1]),
                    "a replica was promoted though only one of three primaries was left");
            Thread.sleep(100);
        }
        assertTrue(call(PRIMARIES[2], "CLUSTER", "INFO").contains("cluster_state:fail\r\n"));

        // TAKEOVER needs no vote of the primaries (here: a Raft commit, which the four nodes left make)
        for (int i = 0; i < 2; i++) {
            assertEquals("+OK\r\n", call(REPLICAS[i], "CLUSTER", "FAILOVER", "TAKEOVER"));
        }
        for (int i = 0; i < 2; i++) {
            int port = REPLICAS[i];
            await("replica " + port + " never took over", 20_000, () -> isMaster(port));
        }
        for (int port : new int[]{PRIMARIES[2], REPLICAS[0], REPLICAS[1], REPLICAS[2]}) {
            await("node " + port + " never reported the cluster ok again", 20_000,
                    () -> call(port, "CLUSTER", "INFO").contains("cluster_state:ok\r\n"));
        }
        assertTrue(!isMaster(REPLICAS[2]), "the replica of the live primary was promoted");
    }
}
