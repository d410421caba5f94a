package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
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
 * Replica migration to an orphaned primary (Redis's {@code cluster-migration-barrier}, legacy cluster tests 07 and 12):
 * primaries A (replicas A1, A2), B (B1) and C (C1, a JVM of its own), {@code cluster-node-timeout 2000}. After kill -9
 * of C1, C is orphaned once C1 is flagged failed: with {@code cluster-migration-barrier 2} nobody moves (A would keep
 * only one replica), with barrier 1 but {@code cluster-allow-replica-migration no} nobody moves, and once it is yes the
 * replica of A with the smaller node id becomes C's replica (and syncs from it); the other replicas stay.
 */
class ReplicaMigrationTest {
    private static final int A = 22710;
    private static final int B = 22711;
    private static final int C = 22712;
    private static final int A1 = 22713;
    private static final int A2 = 22714;
    private static final int B1 = 22715;
    private static final int C1 = 22716;
    private static final int[] ALIVE = {A, B, C, A1, A2, B1};
    /** Long enough for a move to have happened: Redis's 5 s delay after the orphaned state, and two node timeouts. */
    private static final long NO_MOVE_WAIT_MS = ReplicaMigration.DELAY_MS + 4000;

    private SpinelServer[] primaries;
    private final SpinelServer[] replicas = new SpinelServer[3];
    private Process c1;

    @AfterEach
    void tearDown() {
        if (c1 != null) {
            c1.destroyForcibly();
        }
        ClusterNodes.closeAll(replicas);
        ClusterNodes.closeAll(primaries);
    }

    private static ServerConfig base() {
        return ServerConfig.defaults().with("cluster-node-timeout", "2000"); // as ClusterFailoverTest.startChild's
    }

    private static String call(int port, String... args) {
        try (RawClient r = new RawClient(port)) {
            return r.callString(args);
        } catch (IOException down) {
            return "";
        }
    }

    private static String id(int port) {
        return call(port, "CLUSTER", "MYID").split("\r\n")[1];
    }

    private static void configSetAll(String name, String value) {
        for (int port : ALIVE) {
            assertEquals("+OK\r\n", call(port, "CONFIG", "SET", name, value), "CONFIG SET " + name + " on " + port);
        }
    }

    /** Whether node {@code port} replicates {@code primaryPort} in its own INFO, synced. */
    private static boolean replicates(int port, int primaryPort) {
        String info = call(port, "INFO", "replication");
        return info.contains("role:slave\r\n") && info.contains("master_port:" + primaryPort + "\r\n")
                && info.contains("master_link_status:up");
    }

    /** Whether B's CLUSTER NODES names {@code replicaId} a replica of {@code primaryId}. */
    private static boolean shownReplicaOf(String replicaId, String primaryId) {
        for (String line : call(B, "CLUSTER", "NODES").split("\n")) {
            String[] f = line.split(" ");
            if (f.length > 3 && f[0].endsWith(replicaId) && f[2].contains("slave") && f[3].equals(primaryId)) {
                return true;
            }
        }
        return false;
    }

    private void assertNobodyMoved(String idA, String idB, String when) {
        for (int port : new int[]{A1, A2}) {
            assertTrue(replicates(port, A), when + ": node " + port + " left A: " + call(port, "INFO", "replication"));
            assertTrue(shownReplicaOf(id(port), idA), when + ": " + call(B, "CLUSTER", "NODES"));
        }
        assertTrue(replicates(B1, B) && shownReplicaOf(id(B1), idB), when + ": B1 left B");
    }

    @Test
    @Timeout(300)
    void theSmallerReplicaOfTheBestServedPrimaryMovesToTheOrphanedOne() throws Exception {
        primaries = ClusterNodes.create("migration", new int[]{A, B, C}, i -> base());
        c1 = ClusterFailoverTest.startChild(C1, Files.createTempDirectory("spinel-migration-c1"));
        replicas[0] = ClusterNodes.startNode("migration-a1", A1, base());
        replicas[1] = ClusterNodes.startNode("migration-a2", A2, base());
        replicas[2] = ClusterNodes.startNode("migration-b1", B1, base());
        for (int port : new int[]{A1, A2, B1, C1}) {
            assertEquals("+OK\r\n", call(port, "CLUSTER", "MEET", "127.0.0.1", Integer.toString(A)));
            await("node " + port + " never joined", 60_000, () -> call(port, "CLUSTER", "INFO").contains("cluster_state:ok"));
        }
        for (int port : new int[]{A, B, C, A1, A2, B1, C1}) {
            ClusterNodes.awaitWholeCluster(port, 7, 60_000);
        }
        String idA = id(A);
        String idB = id(B);
        String idC = id(C);
        String idC1 = id(C1);
        assertEquals("+OK\r\n", call(A1, "CLUSTER", "REPLICATE", idA));
        assertEquals("+OK\r\n", call(A2, "CLUSTER", "REPLICATE", idA));
        assertEquals("+OK\r\n", call(B1, "CLUSTER", "REPLICATE", idB));
        assertEquals("+OK\r\n", call(C1, "CLUSTER", "REPLICATE", idC));
        for (int[] pair : new int[][]{{A1, A}, {A2, A}, {B1, B}, {C1, C}}) {
            await("node " + pair[0] + " never synced from " + pair[1], 30_000, () -> replicates(pair[0], pair[1]));
        }
        assertEquals("*2\r\n$25\r\ncluster-migration-barrier\r\n$1\r\n1\r\n", call(A1, "CONFIG", "GET", "cluster-migration-barrier"));
        configSetAll("cluster-migration-barrier", "2");

        c1.destroyForcibly();
        c1.waitFor(10, TimeUnit.SECONDS);
        await("C1 never flagged failed", 30_000, () -> call(B, "CLUSTER", "NODES").contains(idC1 + " 127.0.0.1:" + C1 + "@"
                + (C1 + 10000) + " slave,fail "));
        Thread.sleep(NO_MOVE_WAIT_MS);
        assertNobodyMoved(idA, idB, "barrier 2");

        configSetAll("cluster-allow-replica-migration", "no");
        configSetAll("cluster-migration-barrier", "1");
        Thread.sleep(NO_MOVE_WAIT_MS);
        assertNobodyMoved(idA, idB, "cluster-allow-replica-migration no");

        configSetAll("cluster-allow-replica-migration", "yes");
        String idA1 = id(A1);
        String idA2 = id(A2);
        int mover = idA1.compareTo(idA2) < 0 ? A1 : A2;
        int stayer = mover == A1 ? A2 : A1;
        String moverId = mover == A1 ? idA1 : idA2;
        // within the delay plus a few ticks (the orphaned time already runs on every replica)
        await("the smaller replica of A never moved to C: " + call(B, "CLUSTER", "NODES"), 20_000,
                () -> shownReplicaOf(moverId, idC));
        await("the moved replica never synced from C", 30_000, () -> replicates(mover, C));
        Thread.sleep(NO_MOVE_WAIT_MS); // nobody else moves: C is no longer orphaned, A would keep no more than the barrier
        assertTrue(replicates(stayer, A) && shownReplicaOf(id(stayer), idA), "the other replica of A moved too");
        assertTrue(replicates(B1, B) && shownReplicaOf(id(B1), idB), "B1 moved");
        assertTrue(shownReplicaOf(moverId, idC), "the moved replica moved again");
    }
}
