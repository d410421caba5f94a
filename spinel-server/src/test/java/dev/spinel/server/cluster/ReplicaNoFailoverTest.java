package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

import static dev.spinel.server.cluster.ClusterFailoverTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis's {@code cluster-replica-no-failover} (legacy cluster test 11-manual-takeover sets it): primary A (a separate
 * JVM, to be killed), primary B and A's replica C with the setting on. After kill -9 of A, C does not take over
 * though A is flagged failed; once the setting is off, it does. Every node shows the setting as Redis's {@code nofailover}
 * flag in CLUSTER NODES (legacy cluster test 13-no-failover-option).
 */
class ReplicaNoFailoverTest {
    private static final int A = 22561;
    private static final int B = 22562;
    private static final int C = 22563;
    /** A third primary: a failover needs a majority of the primaries serving slots (2 of 3), as in Redis. */
    private static final int D = 22564;
    private static final String TIMEOUT = "2000"; // as ClusterFailoverTest.startChild's

    private Process a;
    private SpinelServer b;
    private SpinelServer c;
    private SpinelServer d;

    @AfterEach
    void tearDown() {
        if (a != null) {
            a.destroyForcibly();
        }
        ClusterNodes.closeAll(new SpinelServer[]{b, c, d});
    }

    private static SpinelServer startNode(int port, boolean noFailover) throws IOException {
        return SpinelServer.start(ServerConfig.defaults().with("port", Integer.toString(port))
                .with("cluster-enabled", "yes").with("cluster-node-timeout", TIMEOUT).with("repl-diskless-sync-delay", "0")
                .with("cluster-slave-no-failover", noFailover ? "yes" : "no")
                .with("dir", Files.createTempDirectory("spinel-no-failover").toString()));
    }

    private static String call(int port, String... args) {
        return ClusterNodes.callOrEmpty(port, args);
    }

    @Test
    @Timeout(180)
    void aReplicaSetNotToTakeOverStaysAReplica() throws Exception {
        a = ClusterFailoverTest.startChild(A, Files.createTempDirectory("spinel-no-failover-a"));
        b = startNode(B, false);
        c = startNode(C, true);
        d = startNode(D, false);
        assertEquals("*2\r\n$27\r\ncluster-replica-no-failover\r\n$3\r\nyes\r\n", call(C, "CONFIG", "GET", "cluster-replica-no-failover"));
        assertEquals("+OK\r\n", call(A, "CLUSTER", "ADDSLOTSRANGE", "0", "8191"));
        assertEquals("+OK\r\n", call(B, "CLUSTER", "ADDSLOTSRANGE", "8192", "12287"));
        assertEquals("+OK\r\n", call(D, "CLUSTER", "ADDSLOTSRANGE", "12288", "16383"));
        assertEquals("+OK\r\n", call(B, "CLUSTER", "MEET", "127.0.0.1", Integer.toString(A)));
        await("B never joined", 60_000, () -> call(B, "CLUSTER", "INFO").contains("cluster_known_nodes:2"));
        assertEquals("+OK\r\n", call(D, "CLUSTER", "MEET", "127.0.0.1", Integer.toString(A)));
        await("D never joined", 60_000, () -> call(D, "CLUSTER", "INFO").contains("cluster_known_nodes:3"));
        assertEquals("+OK\r\n", call(C, "CLUSTER", "MEET", "127.0.0.1", Integer.toString(A)));
        for (int port : new int[]{A, B, C, D}) {
            ClusterNodes.awaitWholeCluster(port, 4, 60_000);
        }
        String idA = call(A, "CLUSTER", "MYID").split("\r\n")[1];
        assertEquals("+OK\r\n", call(C, "CLUSTER", "REPLICATE", idA));
        await("C never replicated A", 20_000, () -> call(C, "INFO", "replication").contains("master_link_status:up"));
        // Redis's nofailover flag, on every node (C was set so before it joined: it announces it again once in)
        String idC = call(C, "CLUSTER", "MYID").split("\r\n")[1];
        for (int port : new int[]{A, B, C}) {
            String myself = port == C ? "myself," : "";
            await("node " + port + " never showed C's nofailover flag", 20_000,
                    () -> call(port, "CLUSTER", "NODES").contains(idC + " 127.0.0.1:" + C + "@" + (C + 10000) + " "
                            + myself + "slave,nofailover " + idA + " "));
        }

        a.destroyForcibly();
        a.waitFor(10, TimeUnit.SECONDS);
        await("A never flagged failed", 20_000, () -> call(B, "CLUSTER", "NODES").contains(" master,fail "));
        Thread.sleep(6000); // three node timeouts after the verdict: a failover would have been committed by now
        assertTrue(call(C, "INFO", "replication").contains("role:slave\r\n"), "C took over though set not to");
        assertTrue(call(B, "CLUSTER", "NODES").contains(" master,fail - "), call(B, "CLUSTER", "NODES"));

        assertEquals("+OK\r\n", call(C, "CONFIG", "SET", "cluster-replica-no-failover", "no"));
        await("B still shows C's nofailover flag", 20_000, () -> !call(B, "CLUSTER", "NODES").contains("nofailover"));
        await("C never took over once allowed to", 20_000, () -> call(C, "INFO", "replication").contains("role:master\r\n"));
    }
}
