package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.Topology;
import dev.spinel.server.engine.pubsub.PubSub;
import dev.spinel.store.KeySlot;

/**
 * Shard-channel subscribers lose the channels of slots this node's shard (the node and its primary or replicas)
 * no longer serves, as Redis 7.0's clusterDelSlot → removeChannelsInSlot: a slot moved away (SETSLOT NODE at the end
 * of a migration), deleted (DELSLOTS) or left with a CLUSTER RESET. Each gets a {@code sunsubscribe} push and stays
 * connected; a client that subscribes again is redirected to the new owner.
 *
 * <p>Where Redis differs: a failover keeps the subscriptions of the shard's nodes here (the shard still serves
 * the slot: its new primary is a node of it), where Redis's other replicas of the failed primary drop theirs as the
 * slot changes owner in their view.
 *
 * <p>Stateless; called by the topology's apply thread with two consecutive topologies.
 */
final class ShardChannelRelease {
    private ShardChannelRelease() {
    }

    /** Drops the subscriptions of the slots the shard of {@code myId} served in {@code before} and not in {@code after}. */
    static void apply(Topology before, Topology after, String myId, PubSub<?> pubSub) {
        String shardBefore = shardPrimary(before, myId);
        if (shardBefore == null) {
            return;
        }
        String shardAfter = shardPrimary(after, myId);
        boolean[] lost = new boolean[Topology.SLOTS];
        boolean any = false;
        for (int s = 0; s < Topology.SLOTS; s++) {
            if (shardBefore.equals(before.owner(s)) && (shardAfter == null || !shardAfter.equals(after.owner(s)))) {
                lost[s] = true;
                any = true;
            }
        }
        if (any) {
            pubSub.dropShardChannels(channel -> lost[KeySlot.of(channel, 0, channel.length)]);
        }
    }

    /** The primary of the shard {@code id} belongs to in {@code t} (itself when a primary), or null. */
    private static String shardPrimary(Topology t, String id) {
        ClusterNode n = t == null ? null : t.node(id);
        if (n == null) {
            return null;
        }
        return n.isPrimary() ? id : n.primaryId();
    }
}
