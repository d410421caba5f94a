package dev.spinel.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A started Raft topology leaves no Ratis JVM pause monitor running ({@link PauseMonitorOff}). */
class PauseMonitorOffTest {
    @TempDir
    Path dir;

    @Test
    void aStartedTopologyRunsNoPauseMonitor() throws Exception {
        ClusterNode n = new ClusterNode("d".repeat(40), "127.0.0.1", 28210, 28310, null, 0);
        try (RaftTopology t = RaftTopology.start(n, "127.0.0.1", dir.resolve("d"), Topology.of(n), 300)) {
            assertEquals(1, t.current().nodes().size());
            assertEquals(0, pauseMonitors(), "a JvmPauseMonitor thread is running");
        }
    }

    private static long pauseMonitors() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(th -> th.isAlive() && th.getName().startsWith("JvmPauseMonitor")).count();
    }
}
