package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;

import static dev.spinel.server.cluster.ClusterNodes.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * {@code cluster-node-timeout 1}, as Redis's unit/cluster sets it: the nodes are up, so none is flagged {@code fail}
 * and the cluster comes up (the fencing and the failure detection use at least 1 s: a PING answered in more than
 * 1 ms is not a failed node).
 */
class NodeTimeoutFloorTest {
    private static final int X = 21511;
    private static final int Y = 21512;
    private SpinelServer x;
    private SpinelServer y;

    @AfterEach
    void stop() {
        ClusterNodes.closeAll(new SpinelServer[]{x, y});
    }

    private static SpinelServer start(int port) throws IOException {
        return ClusterNodes.startNode("timeout-floor", port, ServerConfig.defaults().with("cluster-node-timeout", "1"));
    }

    @Test
    @Timeout(120)
    void aOneMillisecondNodeTimeoutFlagsNoLiveNode() throws Exception {
        x = start(X);
        y = start(Y);
        assertEquals("+OK\r\n", call(X, "CLUSTER", "ADDSLOTSRANGE", "0", "8000"));
        assertEquals("+OK\r\n", call(Y, "CLUSTER", "ADDSLOTSRANGE", "8001", "16383"));
        assertEquals("+OK\r\n", call(Y, "CLUSTER", "MEET", "127.0.0.1", Integer.toString(X)));
        for (int port : new int[]{X, Y}) {
            Await.waitFor(() -> call(port, "CLUSTER", "INFO").contains("cluster_known_nodes:2\r\n"), port + " knowing 2 nodes");
        }
        // the leader judges the others every 100 ms: over 1.5 s it had many chances to flag a node
        long end = System.currentTimeMillis() + 1500;
        while (System.currentTimeMillis() < end) {
            for (int port : new int[]{X, Y}) {
                String nodes = call(port, "CLUSTER", "NODES");
                assertFalse(nodes.contains(",fail"), nodes);
            }
            Thread.sleep(50);
        }
        for (int port : new int[]{X, Y}) {
            Await.waitFor(() -> call(port, "CLUSTER", "INFO").contains("cluster_state:ok\r\n"), port + " ok");
        }
    }
}
