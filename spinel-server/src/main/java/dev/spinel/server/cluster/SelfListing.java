package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.Topology;
import dev.spinel.cluster.TopologyChange;

import java.util.Arrays;

/**
 * CLUSTER NODES always has a {@code myself} line, as in Redis. A node being brought into another group applies that
 * group's changes before it votes there; if the change that brings it in then fails (a Raft configuration change
 * timing out on a loaded machine) it is undone, and the group's topology no longer lists the node that applies it.
 * Its CLUSTER NODES then shows it as it last was listed: a primary with the slots it served then that nobody serves
 * now, which is what the meeting of the node bringing it in again reads.
 *
 * <p>Thread-safety: {@link #applied} is called on the topology's apply thread; {@link #view} from any thread (the
 * last listing is a volatile reference to an immutable topology).
 */
final class SelfListing {
    private volatile Topology lastListing;

    /** Remembers {@code t} if it lists {@code myId}. */
    void applied(Topology t, String myId) {
        if (t.node(myId) != null) {
            lastListing = t;
        }
    }

    /** {@code t}, with a line for {@code myId} if it lacks one and the node was listed before. */
    Topology view(Topology t, String myId) {
        Topology listed = lastListing;
        ClusterNode me = listed == null ? null : listed.node(myId);
        if (t.node(myId) != null || me == null) {
            return t;
        }
        int[] slots = new int[Topology.SLOTS];
        int n = 0;
        for (int s = 0; s < Topology.SLOTS; s++) {
            if (myId.equals(listed.owner(s)) && t.owner(s) == null) {
                slots[n++] = s;
            }
        }
        Topology.Builder b = t.toBuilder();
        new TopologyChange.AddNode(new ClusterNode(myId, me.host(), me.port(), me.busPort(), null, me.configEpoch()),
                Arrays.copyOf(slots, n)).apply(b);
        return b.build();
    }
}
