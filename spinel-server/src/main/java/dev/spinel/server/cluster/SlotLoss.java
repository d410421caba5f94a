package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.Topology;

/**
 * A primary that has just lost its last slot to another primary (SETSLOT NODE at the end of a reshard) becomes
 * that primary's replica, and so do its replicas, as Redis 7.0's clusterUpdateSlotsConfigWith: always with
 * {@code cluster-allow-replica-migration yes} (the default), otherwise only when every slot the new owner has
 * came from it. Slots deleted (DELSLOTS) or failed over make nobody move.
 *
 * <p>Stateless; pure function of two consecutive topologies.
 */
final class SlotLoss {
    private SlotLoss() {
    }

    /** The primary {@code myId} should now replicate, or null. {@code before} and {@code after} are consecutive. */
    static String newPrimary(Topology before, Topology after, String myId, boolean allowReplicaMigration) {
        ClusterNode me = after.node(myId);
        ClusterNode meBefore = before.node(myId);
        if (me == null || meBefore == null) {
            return null;
        }
        String current = me.isPrimary() ? myId : me.primaryId();
        String previous = meBefore.isPrimary() ? myId : meBefore.primaryId();
        ClusterNode cur = current == null ? null : after.node(current);
        if (cur == null || !current.equals(previous) || !cur.isPrimary() || after.slotCount(current) != 0) {
            return null;
        }
        String taker = null;
        int taken = 0;
        int had = 0;
        for (int s = 0; s < Topology.SLOTS; s++) {
            if (!current.equals(before.owner(s))) {
                continue;
            }
            had++;
            String o = after.owner(s);
            if (o != null) {
                taker = o;
                taken++;
            }
        }
        if (had == 0 || taker == null || taker.equals(current)) {
            return null;
        }
        ClusterNode t = after.node(taker);
        if (t == null || !t.isPrimary()) {
            return null;
        }
        if (!allowReplicaMigration && after.slotCount(taker) != taken) {
            return null;
        }
        return taker;
    }
}
