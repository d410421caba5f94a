package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.spinel.server.cluster.ClusterNodes.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * In Redis any set of MEETs that connects N nodes ends, through gossip, with every node knowing every other. Here a
 * MEET merges Raft groups, and the nodes of a group that is merged into another must all follow it: Redis's legacy
 * cluster suite MEETs ten nodes as a chain (node i meets node i+1, one after the other without waiting), and a node
 * brought into a group that its other members then left stayed alone in that group without a majority. Each order
 * here ends with every node knowing all N, the same ids everywhere, and one working group: a slot added on each node
 * is seen on every node.
 */
class MeetOrderTest {
    private static final int N = 6;
    private SpinelServer[] nodes;

    @AfterEach
    void stop() {
        ClusterNodes.closeAll(nodes);
    }

    private int[] start(int base) throws Exception {
        nodes = new SpinelServer[N];
        int[] ports = new int[N];
        for (int i = 0; i < N; i++) {
            ports[i] = base + i;
            nodes[i] = ClusterNodes.startNode("meet-order-" + i, ports[i], ServerConfig.defaults());
        }
        return ports;
    }

    private static void meet(int from, int to) throws Exception {
        assertEquals("+OK\r\n", call(from, "CLUSTER", "MEET", "127.0.0.1", Integer.toString(to)));
    }

    @Test
    @Timeout(240)
    void aChainOfMeetsAsRedissLegacySuiteSendsThem() throws Exception {
        int[] p = start(21701);
        for (int i = 0; i < N - 1; i++) {
            meet(p[i], p[i + 1]);
        }
        assertOneCluster(p);
    }

    @Test
    @Timeout(240)
    void neighboursMeetingEachOtherAtOnce() throws Exception {
        int[] p = start(21711);
        ExecutorService pool = Executors.newFixedThreadPool(2 * (N - 1));
        try {
            List<Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < N - 1; i++) {
                int a = p[i];
                int b = p[i + 1];
                sent.add(pool.submit(() -> {
                    meet(a, b);
                    return null;
                }));
                sent.add(pool.submit(() -> {
                    meet(b, a);
                    return null;
                }));
            }
            for (Future<?> f : sent) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        assertOneCluster(p);
    }

    @Test
    @Timeout(240)
    void twoClustersOfSeveralNodesMergedByOneMeet() throws Exception {
        int[] p = start(21721);
        int half = N / 2;
        for (int i = 1; i < half; i++) {
            meet(p[i], p[0]);
            meet(p[half + i], p[half]);
        }
        awaitKnown(p, 0, half, half);
        awaitKnown(p, half, N, N - half);
        meet(p[half - 1], p[N - 1]);
        assertOneCluster(p);
    }

    private static void awaitKnown(int[] p, int from, int to, int known) throws Exception {
        long deadline = System.currentTimeMillis() + 90_000;
        for (int i = from; i < to; i++) {
            while (!call(p[i], "CLUSTER", "INFO").contains("cluster_known_nodes:" + known + "\r\n")) {
                assertTrue(System.currentTimeMillis() < deadline, "node " + i + " never knew " + known + " nodes: "
                        + views(p));
                Thread.sleep(50);
            }
        }
    }

    /** Every node knows all N with the same ids, and a change committed on any node reaches every other. */
    private static void assertOneCluster(int[] p) throws Exception {
        awaitKnown(p, 0, N, N);
        Set<String> ids = ids(p[0]);
        for (int i = 1; i < N; i++) {
            assertEquals(ids, ids(p[i]), "node " + i);
        }
        for (int i = 0; i < N; i++) {
            assertEquals("+OK\r\n", call(p[i], "CLUSTER", "ADDSLOTS", Integer.toString(i)), "node " + i);
        }
        long deadline = System.currentTimeMillis() + 30_000;
        for (int i = 0; i < N; i++) {
            while (!call(p[i], "CLUSTER", "INFO").contains("cluster_slots_assigned:" + N + "\r\n")) {
                assertTrue(System.currentTimeMillis() < deadline, "node " + i + " did not see every node's slot: "
                        + call(p[i], "CLUSTER", "INFO"));
                Thread.sleep(50);
            }
        }
    }

    private static String views(int[] p) throws Exception {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < p.length; i++) {
            b.append("\nnode ").append(i).append(":\n").append(call(p[i], "CLUSTER", "NODES"));
        }
        return b.toString();
    }

    private static Set<String> ids(int port) throws Exception {
        Set<String> ids = new TreeSet<>();
        for (String line : call(port, "CLUSTER", "NODES").split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length >= 8) {
                ids.add(f[0]);
            }
        }
        return ids;
    }
}
