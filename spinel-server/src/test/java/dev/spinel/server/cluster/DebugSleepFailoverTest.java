package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.util.List;

import static dev.spinel.server.cluster.ClusterFailoverTest.await;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DEBUG SLEEP on a cluster primary stops the whole node, as Redis's sleep on its only thread does: the cluster sees
 * it silent and its replica takes over before it wakes (Redis's legacy cluster test 10-manual-failover: DEBUG SLEEP 10
 * on a primary, its replica a primary within 5 s). Primary A is a JVM of its own (the sleep stops its process),
 * primaries B and D, A's replica C, {@code cluster-node-timeout 2000}. Before, only the command's thread slept: the
 * node went on answering Raft and no failover came.
 */
class DebugSleepFailoverTest {
    private static final int A = 21651;
    private static final int B = 21652;
    private static final int C = 21653;
    private static final int D = 21654;

    private Process a;
    private final SpinelServer[] inProcess = new SpinelServer[3];

    @AfterEach
    void tearDown() {
        if (a != null) {
            a.destroyForcibly();
        }
        ClusterNodes.closeAll(inProcess);
    }

    private static String call(int port, String... args) {
        return ClusterNodes.callOrEmpty(port, args);
    }

    @Test
    @Timeout(180)
    void aSleepingPrimaryIsFailedOverBeforeItWakes() throws Exception {
        a = ClusterFailoverTest.startChild(A, Files.createTempDirectory("spinel-debug-sleep-a"));
        int[] ports = {B, C, D};
        for (int i = 0; i < ports.length; i++) {
            inProcess[i] = ClusterNodes.startNode("debug-sleep-" + i, ports[i],
                    ServerConfig.defaults().with("cluster-node-timeout", "2000"));
        }
        assertEquals("+OK\r\n", call(A, "CLUSTER", "ADDSLOTSRANGE", "0", "8191"));
        assertEquals("+OK\r\n", call(B, "CLUSTER", "ADDSLOTSRANGE", "8192", "12287"));
        assertEquals("+OK\r\n", call(D, "CLUSTER", "ADDSLOTSRANGE", "12288", "16383"));
        int known = 1;
        for (int port : ports) {
            assertEquals("+OK\r\n", call(port, "CLUSTER", "MEET", "127.0.0.1", Integer.toString(A)));
            int n = ++known;
            await("node " + port + " never joined", 60_000, () -> call(port, "CLUSTER", "INFO").contains("cluster_known_nodes:" + n));
        }
        for (int port : new int[]{A, B, C, D}) {
            ClusterNodes.awaitWholeCluster(port, 4, 60_000);
        }
        String idA = call(A, "CLUSTER", "MYID").split("\r\n")[1];
        assertEquals("+OK\r\n", call(C, "CLUSTER", "REPLICATE", idA));
        await("C never replicated A", 20_000, () -> call(C, "INFO", "replication").contains("master_link_status:up"));

        try (RawClient sleeper = new RawClient(A)) {
            long start = System.currentTimeMillis();
            sleeper.send(List.of("DEBUG".getBytes(UTF_8), "SLEEP".getBytes(UTF_8), "8".getBytes(UTF_8)));
            await("C never took over while A slept", 7_000, () -> call(C, "INFO", "replication").contains("role:master\r\n"));
            long tookOver = System.currentTimeMillis() - start;
            assertEquals("+OK\r\n", new String(sleeper.readReply(), UTF_8)); // answered once awake, as Redis
            long slept = System.currentTimeMillis() - start;
            assertTrue(slept >= 7_900, "DEBUG SLEEP 8 answered after " + slept + " ms");
            assertTrue(tookOver < 7_000, "C took over " + tookOver + " ms after the sleep began");
        }
        await("A, awake, never became C's replica", 30_000, () -> call(A, "INFO", "replication").contains("role:slave\r\n"));
    }
}
