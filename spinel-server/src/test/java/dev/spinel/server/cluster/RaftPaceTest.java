package dev.spinel.server.cluster;

import dev.spinel.cluster.RaftTopology;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static dev.spinel.server.cluster.ClusterNodes.call;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Raft's pace follows cluster-node-timeout ({@link RaftTiming}): heartbeats every 750 ms at Redis's default of 15 s,
 * every 150 ms at 3 s; a CONFIG SET on a node alone restarts its Raft server at the new pace (the Tcl suites lower the
 * timeout right after a CLUSTER RESET HARD), and a node with peers keeps its pace, its fencing timeout raised to what
 * the pace allows, until it starts again.
 */
class RaftPaceTest {
    private static final int X = 21521;
    private static final int Y = 21522;
    private SpinelServer x;
    private SpinelServer y;

    @AfterEach
    void stop() {
        ClusterNodes.closeAll(new SpinelServer[]{x, y});
    }

    private static long pace(SpinelServer s) throws Exception {
        return ((RaftTopology) s.cluster().clusterTopology()).rpcTimeoutMinMs();
    }

    @Test
    void theElectionTimeoutIsATenthOfTheNodeTimeoutWithinBounds() {
        assertEquals(300, RaftTiming.rpcTimeoutMinMs(1));
        assertEquals(300, RaftTiming.rpcTimeoutMinMs(3000));
        assertEquals(500, RaftTiming.rpcTimeoutMinMs(5000));
        assertEquals(1500, RaftTiming.rpcTimeoutMinMs(15000));
        assertEquals(1500, RaftTiming.rpcTimeoutMinMs(3_600_000));
        RaftTiming t = new RaftTiming();
        assertEquals(1500, t.starting(15000));
        assertEquals(5000, t.nodeTimeoutMs(2000)); // three heartbeats within the fencing's half
        assertEquals(15000, t.nodeTimeoutMs(15000));
        assertEquals(300, t.starting(2000));
        assertEquals(1000, t.nodeTimeoutMs(1));
        assertEquals(2000, t.nodeTimeoutMs(2000));
        assertEquals(100, t.cronPeriodMs()); // Redis's 10 Hz at the fastest pace
        t.starting(15000);
        assertEquals(250, t.cronPeriodMs());
        t.starting(6000);
        assertEquals(100, t.cronPeriodMs());
        t.starting(9000);
        assertEquals(150, t.cronPeriodMs());
    }

    @Test
    @Timeout(120)
    void aNodeAloneTakesANewPaceAtOnceANodeWithPeersAtItsNextStart() throws Exception {
        x = ClusterNodes.startNode("raft-pace", X, ServerConfig.defaults());
        y = ClusterNodes.startNode("raft-pace", Y, ServerConfig.defaults());
        assertEquals(1500, pace(x));
        assertEquals("+OK\r\n", call(X, "CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
        assertEquals("+OK\r\n", call(X, "SET", "k", "v"));

        assertEquals("+OK\r\n", call(X, "CONFIG", "SET", "cluster-node-timeout", "3000"));
        assertEquals(300, pace(x));
        Await.waitFor(() -> call(X, "GET", "k").equals("$1\r\nv\r\n"), "x serving its slots again");
        assertEquals("+OK\r\n", call(X, "SET", "k", "w")); // its topology recovered: the slots, the record

        assertEquals("+OK\r\n", call(Y, "CLUSTER", "MEET", "127.0.0.1", Integer.toString(X)));
        for (int port : new int[]{X, Y}) {
            Await.waitFor(() -> call(port, "CLUSTER", "INFO").contains("cluster_known_nodes:2\r\n"), port + " knowing 2 nodes");
        }
        assertEquals("+OK\r\n", call(X, "CONFIG", "SET", "cluster-node-timeout", "15000"));
        assertEquals(300, pace(x)); // not restarted under its peer
        Await.waitFor(() -> call(X, "GET", "k").equals("$1\r\nw\r\n"), "x serving its slots in the cluster of two");
        for (int port : new int[]{X, Y}) { // the two paces in one group: no node fences itself or is flagged
            Await.waitFor(() -> call(port, "CLUSTER", "INFO").contains("cluster_state:ok\r\n"), port + " ok");
        }
        long end = System.currentTimeMillis() + 3000;
        while (System.currentTimeMillis() < end) {
            for (int port : new int[]{X, Y}) {
                assertEquals("$1\r\nw\r\n", call(port, "GET", "k").replace("-MOVED 7629 127.0.0.1:" + X + "\r\n", "$1\r\nw\r\n"));
            }
            Thread.sleep(100);
        }
    }
}
