package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.SlotMove;
import dev.spinel.cluster.Topology;

import java.util.Map;

/**
 * What dispatch needs to know of the topology, per slot, as this node sees it: who serves the slot,
 * whether this node migrates it away or imports it, whether the cluster is up, and this node's primary
 * if it is a replica. Rebuilt on every topology change.
 *
 * <p>Immutable; published through a volatile field, so a request sees one consistent view.
 */
final class SlotRouting {
    final String myId;
    final ClusterNode[] owner = new ClusterNode[Topology.SLOTS];
    final boolean[] mine = new boolean[Topology.SLOTS];
    /** The node this node migrates the slot to (SETSLOT MIGRATING here), or null. */
    final ClusterNode[] migratingTo = new ClusterNode[Topology.SLOTS];
    final boolean[] importing = new boolean[Topology.SLOTS];
    /**
     * Redis's cluster_state ok: every slot served by a primary not flagged failed (or cluster-require-full-coverage
     * off), and this node not
     * cut off from the majority of the Raft group (a primary on the minority side stops serving, as Redis's
     * does when it cannot reach the majority of primaries).
     */
    final boolean ok;
    /**
     * Per slot: the cluster is ok and this node serves the slot with no migration out or import in, so any
     * request on it runs here. One array for the common case, whose 16 KB stay in the cache, where the four
     * arrays above cost a miss each for a random key.
     */
    final boolean[] servedHere = new boolean[Topology.SLOTS];
    /** This node's primary when it is a replica, else null. */
    final ClusterNode myPrimary;
    /**
     * Per slot, the node this one just handed the slot to and answers {@code -ASK} for instead of {@code -MOVED}
     * until it confirms ({@link Handovers}); null when there is none.
     */
    final ClusterNode[] askTo;

    SlotRouting(Topology t, String myId, boolean requireFullCoverage, boolean cutOff, Map<Integer, String> handedOver) {
        this.myId = myId;
        ClusterNode[] ask = null;
        for (Map.Entry<Integer, String> h : handedOver.entrySet()) {
            ClusterNode to = t.node(h.getValue());
            if (to != null) {
                if (ask == null) {
                    ask = new ClusterNode[Topology.SLOTS];
                }
                ask[h.getKey()] = to;
            }
        }
        this.askTo = ask;
        int served = 0;
        for (int s = 0; s < Topology.SLOTS; s++) {
            String o = t.owner(s);
            if (o != null) {
                owner[s] = t.node(o);
                mine[s] = o.equals(myId);
                if (!t.isFailed(o)) {
                    served++;
                }
            }
            SlotMove m = t.migrating(s);
            if (m != null && m.nodeId().equals(myId)) {
                migratingTo[s] = t.node(m.peerId());
            }
            SlotMove i = t.importing(s);
            importing[s] = i != null && i.nodeId().equals(myId);
        }
        this.ok = !cutOff && (!requireFullCoverage || served == Topology.SLOTS);
        for (int s = 0; s < Topology.SLOTS; s++) {
            servedHere[s] = ok && mine[s] && migratingTo[s] == null && !importing[s];
        }
        ClusterNode me = t.node(myId);
        this.myPrimary = me == null || me.isPrimary() ? null : t.node(me.primaryId());
    }
}
