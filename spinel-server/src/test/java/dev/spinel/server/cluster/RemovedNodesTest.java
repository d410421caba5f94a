package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.Topology;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A node that leaves the topology is noted as removed, and no longer once it is back. */
class RemovedNodesTest {
    private static final String A = "a".repeat(40);
    private static final String B = "b".repeat(40);

    @Test
    void aNodeThatLeftIsNotedUntilItComesBack() {
        Topology alone = Topology.of(new ClusterNode(A, "127.0.0.1", 7000, 17000, null, 0));
        Topology both = Topology.withNode(alone, new ClusterNode(B, "127.0.0.1", 7001, 17001, null, 0));
        RemovedNodes removed = new RemovedNodes();
        removed.applied(null, both);
        assertFalse(removed.removedRecently(B));
        removed.applied(both, alone);
        assertTrue(removed.removedRecently(B));
        assertFalse(removed.removedRecently(A), "never left");
        removed.applied(alone, both);
        assertFalse(removed.removedRecently(B), "back in the topology");
    }
}
