package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.NodesFile;
import dev.spinel.cluster.Topology;
import dev.spinel.cluster.TopologyChange;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node whose join was undone (its group's topology forgot it after it had applied the group's first changes) still
 * shows a {@code myself} line in CLUSTER NODES, as it was last listed: a primary with its slots that nobody took.
 */
class SelfListingTest {
    private static final String A = "a".repeat(40);
    private static final String B = "b".repeat(40);

    @Test
    void aNodeForgottenByItsGroupStillShowsItselfAsLastListed() throws Exception {
        Topology.Builder joined = Topology.of(new ClusterNode(A, "127.0.0.1", 7000, 17000, null, 1)).toBuilder();
        new TopologyChange.AddNode(new ClusterNode(B, "127.0.0.1", 7001, 17001, null, 2), new int[]{100, 101, 102}).apply(joined);
        Topology withB = joined.build();
        Topology.Builder undone = withB.toBuilder();
        new TopologyChange.Forget(A, B).apply(undone);
        Topology.Builder taken = undone.build().toBuilder();
        new TopologyChange.AddSlots(A, new int[]{102}).apply(taken); // one of B's former slots has an owner now
        Topology forgotten = taken.build();

        SelfListing listing = new SelfListing();
        assertSame(forgotten, listing.view(forgotten, B), "never listed: nothing to show");
        listing.applied(withB, B);
        listing.applied(forgotten, B);
        Topology view = listing.view(forgotten, B);
        assertEquals(B, view.owner(100));
        assertEquals(B, view.owner(101));
        assertEquals(A, view.owner(102));
        assertNull(view.node(B).primaryId());
        String nodes = NodesFile.describe(view, B, 0);
        assertTrue(nodes.contains(B + " 127.0.0.1:7001@17001 myself,master - 0 0 2 connected 100-101\n"), nodes);
        assertSame(withB, listing.view(withB, B), "listed: shown as it is");
    }
}
