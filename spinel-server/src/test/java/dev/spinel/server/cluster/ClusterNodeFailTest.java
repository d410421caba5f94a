package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node that stops answering is flagged {@code fail} in every node's CLUSTER NODES once the node timeout passed
 * (Redis's FAIL, here committed by the Raft leader), with Redis's consequences: its link shown
 * {@code disconnected}, its slots counted in {@code cluster_slots_fail}, and, since those slots are no longer
 * served, {@code cluster_state:fail} and CLUSTERDOWN for every key. Started again on its directory, it is heard
 * again: the flag is cleared and the cluster is ok.
 */
class ClusterNodeFailTest {
    private static final int[] PORTS = {22611, 22612, 22613};
    private SpinelServer[] nodes;

    @AfterEach
    void stop() {
        ClusterNodes.closeAll(nodes);
    }

    private static ServerConfig config(int i) {
        return ServerConfig.defaults().with("cluster-port", Integer.toString(PORTS[i] + 10)).with("cluster-node-timeout", "2000");
    }

    private static String call(int port, String... args) throws Exception {
        try (RawClient c = new RawClient(port)) {
            return new String(c.call(args), StandardCharsets.UTF_8);
        }
    }

    /** The CLUSTER NODES line of {@code id} as the node on {@code port} shows it. */
    private static String lineOf(int port, String id) throws Exception {
        for (String line : call(port, "CLUSTER", "NODES").split("\n")) {
            if (line.startsWith(id + " ")) {
                return line;
            }
        }
        return "";
    }

    private static void await(String what, Check check) throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        while (!check.holds()) {
            assertTrue(System.currentTimeMillis() < deadline, what);
            Thread.sleep(50);
        }
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    @Test
    @Timeout(240)
    void aStoppedNodeIsFlaggedFailOnEveryNodeAndClearedWhenItIsBack() throws Exception {
        nodes = ClusterNodes.create("fail", PORTS, ClusterNodeFailTest::config);
        String downId = call(PORTS[2], "CLUSTER", "MYID").substring(5, 45);
        String dir = call(PORTS[2], "CONFIG", "GET", "dir").split("\r\n")[4];
        String slots = lineOf(PORTS[0], downId).split(" connected ")[1];
        int[] range = slots.contains("-")
                ? new int[]{Integer.parseInt(slots.split("-")[0]), Integer.parseInt(slots.split("-")[1])}
                : new int[]{Integer.parseInt(slots), Integer.parseInt(slots)};
        int failedSlots = range[1] - range[0] + 1;
        nodes[2].close();
        nodes[2] = null;
        for (int port : new int[]{PORTS[0], PORTS[1]}) {
            await("node " + port + " never flagged " + downId + " failed",
                    () -> lineOf(port, downId).contains(" master,fail - "));
            String line = lineOf(port, downId);
            assertTrue(line.endsWith(" disconnected " + slots), line);
            await("node " + port + " never reported the cluster down",
                    () -> call(port, "CLUSTER", "INFO").contains("cluster_state:fail\r\n"));
            String info = call(port, "CLUSTER", "INFO");
            assertTrue(info.contains("cluster_slots_ok:" + (16384 - failedSlots) + "\r\n"), info);
            assertTrue(info.contains("cluster_slots_fail:" + failedSlots + "\r\n"), info);
            assertEquals("-CLUSTERDOWN The cluster is down\r\n", call(port, "GET", "foo"));
        }
        nodes[2] = SpinelServer.start(config(2).with("port", Integer.toString(PORTS[2])).with("cluster-enabled", "yes")
                .with("dir", dir));
        for (int port : PORTS) {
            await("node " + port + " never cleared the flag of " + downId,
                    () -> lineOf(port, downId).matches("\\S+ \\S+ (myself,)?master - .* connected .*"));
            await("node " + port + " never reported the cluster ok again",
                    () -> call(port, "CLUSTER", "INFO").contains("cluster_state:ok\r\n"));
        }
    }
}
