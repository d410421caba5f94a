package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.Topology;
import dev.spinel.cluster.TopologyChange;
import dev.spinel.cluster.TopologyException;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The decision of {@link ReplicaMigration} (Redis 7.0's clusterCron + clusterHandleSlaveMigration) on topologies built
 * change by change, as a node applies them: primaries A (replicas A1, A2), B (B1), C (C1); C1 failed.
 */
class ReplicaMigrationTargetTest {
    // ids ordered as their names: A1 < A2 (the smaller id moves)
    private static final String A = id('a');
    private static final String B = id('b');
    private static final String C = id('c');
    private static final String A1 = id('1');
    private static final String A2 = id('2');
    private static final String B1 = id('3');
    private static final String C1 = id('4');
    private static final Predicate<String> NONE_SUSPECTED = id -> false;

    private static String id(char c) {
        return String.valueOf(c).repeat(40);
    }

    /** Applies {@code changes} one by one, each topology told to the snapshot as ClusterMode tells it. */
    private static ReplicaMigration.Snapshot apply(ReplicaMigration.Snapshot s, TopologyChange... changes) throws TopologyException {
        for (TopologyChange c : changes) {
            Topology.Builder b = s.topology.toBuilder();
            c.apply(b);
            s = ReplicaMigration.Snapshot.after(s, b.build());
        }
        return s;
    }

    private static TopologyChange node(String id) {
        return new TopologyChange.AddNode(new ClusterNode(id, "127.0.0.1", 1, 2, null, 0), new int[0]);
    }

    private static int[] range(int from, int to) {
        int[] out = new int[to - from + 1];
        for (int i = 0; i < out.length; i++) {
            out[i] = from + i;
        }
        return out;
    }

    /** The three primaries with their slots, then the replicas, as redis-cli --cluster create makes them. */
    private static ReplicaMigration.Snapshot cluster() throws TopologyException {
        ReplicaMigration.Snapshot s = ReplicaMigration.Snapshot.after(null, Topology.of(new ClusterNode(A, "127.0.0.1", 1, 2, null, 0)));
        s = apply(s, node(B), node(C), node(A1), node(A2), node(B1), node(C1),
                new TopologyChange.AddSlots(A, range(0, 5460)), new TopologyChange.AddSlots(B, range(5461, 10922)),
                new TopologyChange.AddSlots(C, range(10923, 16383)),
                new TopologyChange.Replicate(A1, A), new TopologyChange.Replicate(A2, A), new TopologyChange.Replicate(B1, B),
                new TopologyChange.Replicate(C1, C));
        return apply(s, new TopologyChange.Health(C1, true));
    }

    private static String target(ReplicaMigration.Snapshot s, String me, long barrier, Map<String, Long> since, long now) {
        return ReplicaMigration.target(s, me, NONE_SUSPECTED, barrier, true, since, now);
    }

    @Test
    void theSmallestReplicaOfTheBestServedPrimaryMovesOnceTheDelayHasPassed() throws Exception {
        ReplicaMigration.Snapshot s = cluster();
        assertEquals(Set.of(A, B, C), s.migrateTo);
        Map<String, Long> since = new HashMap<>();
        assertNull(target(s, A1, 1, since, 1000), "moved before the delay");
        assertEquals(1000L, since.get(C));
        assertNull(target(s, A1, 1, since, 1000 + ReplicaMigration.DELAY_MS));
        assertEquals(C, target(s, A1, 1, since, 1001 + ReplicaMigration.DELAY_MS));
        // the other replicas do not move: A2 is not the smallest, B1's primary has one working replica
        Map<String, Long> other = new HashMap<>();
        assertNull(target(s, A2, 1, other, 0));
        assertNull(target(s, A2, 1, other, 60_000));
        assertNull(target(s, B1, 1, other, 60_000));
    }

    @Test
    void nobodyMovesWhenTheirPrimaryWouldKeepNoMoreThanTheBarrier() throws Exception {
        ReplicaMigration.Snapshot s = cluster();
        Map<String, Long> since = new HashMap<>();
        assertNull(target(s, A1, 2, since, 0));
        assertNull(target(s, A1, 2, since, 60_000));
        // barrier 1, but A1 suspects A2 (Redis's PFAIL): A would keep one working replica
        assertNull(ReplicaMigration.target(s, A1, A2::equals, 1, true, since, 120_000));
        assertNull(ReplicaMigration.target(s, A1, NONE_SUSPECTED, 1, false, since, 120_000), "moved with the cluster down");
    }

    @Test
    void aReplicaBackBeforeTheDelayMovesNobody() throws Exception {
        ReplicaMigration.Snapshot s = cluster();
        Map<String, Long> since = new HashMap<>();
        assertNull(target(s, A1, 1, since, 0));
        ReplicaMigration.Snapshot back = apply(s, new TopologyChange.Health(C1, false));
        assertNull(target(back, A1, 1, since, 3000));
        assertFalse(since.containsKey(C));
        assertNull(target(s, A1, 1, since, 6000), "the orphaned time started again");
        assertEquals(C, target(s, A1, 1, since, 11_001));
    }

    @Test
    void aPrimaryThatNeverHadReplicasIsNoTarget() throws Exception {
        // C got its slots before any primary had a replica and never had one (Redis's MIGRATE_TO flag unset)
        ReplicaMigration.Snapshot s = ReplicaMigration.Snapshot.after(null, Topology.of(new ClusterNode(A, "127.0.0.1", 1, 2, null, 0)));
        s = apply(s, node(C), node(A1), node(A2), new TopologyChange.AddSlots(A, range(0, 8191)),
                new TopologyChange.AddSlots(C, range(8192, 16383)), new TopologyChange.Replicate(A1, A),
                new TopologyChange.Replicate(A2, A));
        assertEquals(Set.of(A), s.migrateTo);
        assertNull(target(s, A1, 1, new HashMap<>(), 60_000));
        // a primary getting its first slot while others have replicas is one (Redis's clusterNodeSetSlotBit)
        s = apply(s, node(B), new TopologyChange.SetSlot(C, 9000, "node", B));
        assertTrue(s.migrateTo.contains(B));
        Map<String, Long> since = new HashMap<>();
        assertNull(target(s, A1, 1, since, 0));
        assertEquals(B, target(s, A1, 1, since, 6000));
    }

    @Test
    void aPromotedReplicaIsATargetAndAPrimaryTurnedReplicaIsNot() throws Exception {
        ReplicaMigration.Snapshot s = apply(cluster(), new TopologyChange.Health(C1, false), new TopologyChange.Failover(C1, C));
        assertTrue(s.migrateTo.contains(C1));
        assertFalse(s.migrateTo.contains(C));
        // its only replica (the old primary) failed: orphaned
        s = apply(s, new TopologyChange.Health(C, true));
        Map<String, Long> since = new HashMap<>();
        assertNull(target(s, A1, 1, since, 0));
        assertEquals(C1, target(s, A1, 1, since, 6000));
        // the flag is lost with the last replica (forgotten), as Redis's clusterNodeRemoveSlave
        s = apply(s, new TopologyChange.Forget(A, C));
        assertFalse(s.migrateTo.contains(C1));
        assertNull(target(s, A1, 1, since, 12_000));
    }
}
