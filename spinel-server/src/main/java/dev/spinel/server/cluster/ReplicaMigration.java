package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.ClusterTopology;
import dev.spinel.cluster.Topology;
import dev.spinel.cluster.TopologyChange;
import dev.spinel.cluster.TopologyException;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.log.Log;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Replica migration: a primary that lost its last slot follows the primary that took it ({@link SlotLoss}), and
 * Redis 7.0's replica migration to an orphaned primary (clusterCron's orphaned-master count and
 * clusterHandleSlaveMigration): a primary serving slots whose replicas are all flagged failed (or that has none) is
 * orphaned if it is a migration target (Redis's {@code MIGRATE_TO} flag, {@link Snapshot}: it has or had replicas, was
 * promoted from a replica, or got its first slot while other primaries had replicas). Each replica decides for itself,
 * as in Redis, from the committed topology (the {@code fail} flags are the Raft leader's verdicts, so every replica
 * counts the same working replicas) and its own suspicions ({@link PeerWatch}, Redis's PFAIL): it moves when a primary
 * is orphaned, its own primary has the most working replicas ({@code >= 2}) and keeps more than
 * {@code cluster-migration-barrier} of them that are neither failed nor suspected, the cluster is ok, and it has the
 * smallest node id among the replicas of the primaries with the most working replicas (so one replica moves); and only
 * once the primary has been orphaned for {@link #DELAY_MS} (a replica briefly down, or a failover's replicas being
 * moved, makes nobody move). {@code cluster-allow-replica-migration no} stops it. The move is a committed
 * {@link TopologyChange.Replicate} of this node, after which it resyncs from its new primary as any replica does.
 *
 * <p>Thread-safety: {@link #applied} is called on the topology's thread, one topology at a time, and publishes a
 * {@link Snapshot} through a volatile field; {@link #tick} is called on the cluster cron thread only (it alone uses
 * {@link #orphanedSince}); the commit runs on the given executor, one at a time ({@link #inFlight}).
 */
final class ReplicaMigration {
    /** Redis's CLUSTER_SLAVE_MIGRATION_DELAY: how long a primary is orphaned before a replica moves to it. */
    static final long DELAY_MS = 5000;

    private final ServerConfig config;
    private final Supplier<ClusterTopology> topology;
    private final Executor worker;
    private volatile Snapshot snapshot;
    /** When this node first saw each primary orphaned (Redis's orphaned_time; cron thread only). */
    private final Map<String, Long> orphanedSince = new HashMap<>();
    private final AtomicBoolean inFlight = new AtomicBoolean();

    ReplicaMigration(ServerConfig config, Supplier<ClusterTopology> topology, Executor worker) {
        this.config = config;
        this.topology = topology;
        this.worker = worker;
    }

    /**
     * Tells of each topology applied ({@code t}, right after {@code before}, null for the first), in order, replayed
     * ones too ({@code replay}: the migration targets follow from the history, but nobody moves for an old topology).
     * A primary that has just lost its last slot follows the primary that took it ({@link SlotLoss}).
     */
    void applied(Topology before, Topology t, String myId, boolean replay) {
        snapshot = Snapshot.after(snapshot, t);
        String follow = before == null || replay ? null
                : SlotLoss.newPrimary(before, t, myId, config.clusterAllowReplicaMigration.value());
        if (follow != null) {
            Log.notice("Configuration change detected. Reconfiguring myself as a replica of " + follow);
            replicate(myId, follow, false);
        }
    }

    /** Commits this node's CLUSTER REPLICATE of {@code primaryId} on the worker; {@code orphan}: a migration's. */
    private void replicate(String myId, String primaryId, boolean orphan) {
        ClusterTopology ct = topology.get();
        worker.execute(() -> {
            try {
                ct.commit(new TopologyChange.Replicate(myId, primaryId));
            } catch (TopologyException e) {
                Log.warning((orphan ? "Could not migrate to orphaned master " : "Could not become a replica of ")
                        + primaryId + ": " + e.getMessage());
            } finally {
                if (orphan) {
                    inFlight.set(false);
                }
            }
        });
    }

    /**
     * On the cron thread: moves this replica to an orphaned primary when it is the one to ({@link #target}).
     * {@code stateOk}: the cluster is ok here (Redis migrates only then); {@code suspected}: this node's suspicions.
     */
    void tick(boolean stateOk, Predicate<String> suspected, long nowMs) {
        ClusterTopology ct = topology.get();
        Snapshot s = snapshot;
        if (s == null || inFlight.get() || !config.clusterAllowReplicaMigration.value() || ct.replaying()) {
            return;
        }
        String myId = ct.myId();
        String target = target(s, myId, suspected, config.clusterMigrationBarrier.value(), stateOk, orphanedSince, nowMs);
        if (target == null || !inFlight.compareAndSet(false, true)) {
            return;
        }
        Log.warning("Migrating to orphaned master " + target);
        replicate(myId, target, true);
    }

    /**
     * The orphaned primary replica {@code myId} is to move to now, or null: clusterCron's conditions (a primary
     * orphaned, another with at least two working replicas, this replica's primary among those with the most) and
     * then clusterHandleSlaveMigration's, in Redis's order. Keeps in {@code orphanedSince} when each primary now
     * orphaned was first seen so (Redis's orphaned_time).
     */
    static String target(Snapshot s, String myId, Predicate<String> suspected, long barrier, boolean stateOk,
                         Map<String, Long> orphanedSince, long nowMs) {
        Topology t = s.topology;
        ClusterNode me = t.node(myId);
        if (me == null || me.isPrimary()) {
            return null; // only replicas migrate
        }
        int orphaned = 0;
        int maxOk = 0;
        int mine = 0;
        for (ClusterNode n : t.nodes()) {
            int ok = n.isPrimary() ? workingReplicas(t, n.id()) : 0;
            // Redis starts a primary's orphaned time only when this replica is in a position to move (and keeps a
            // stale one when it is not orphaned meanwhile); here it runs from whenever the primary is seen orphaned
            // and stops when it is not, so a replica back within the delay makes nobody move the next time either
            if (n.isPrimary() && !t.isFailed(n.id()) && s.migrateTo.contains(n.id()) && ok == 0) {
                orphanedSince.putIfAbsent(n.id(), nowMs);
            } else {
                orphanedSince.remove(n.id());
            }
            if (n.id().equals(myId) || !n.isPrimary() || t.isFailed(n.id())) {
                continue;
            }
            if (ok == 0 && s.slots(n.id()) > 0 && s.migrateTo.contains(n.id())) {
                orphaned++;
            }
            maxOk = Math.max(maxOk, ok);
            if (n.id().equals(me.primaryId())) {
                mine = ok;
            }
        }
        orphanedSince.keySet().removeIf(id -> t.node(id) == null);
        // no sense in moving unless some primary has two working replicas (Redis's clusterCron)
        if (orphaned == 0 || maxOk < 2 || mine != maxOk) {
            return null;
        }
        ClusterNode myPrimary = t.node(me.primaryId());
        if (!stateOk || myPrimary == null) {
            return null;
        }
        int left = 0; // my primary's replicas neither failed nor suspected by me: it must keep more than the barrier
        for (ClusterNode r : t.replicasOf(myPrimary.id())) {
            if (!t.isFailed(r.id()) && !suspected.test(r.id())) {
                left++;
            }
        }
        if (left <= barrier) {
            return null;
        }
        String candidate = myId;
        String target = null;
        for (ClusterNode n : t.nodes()) {
            if (!n.isPrimary()) {
                continue;
            }
            int ok = workingReplicas(t, n.id());
            if (target == null && ok == 0 && !t.isFailed(n.id()) && s.migrateTo.contains(n.id()) && s.slots(n.id()) > 0) {
                target = n.id();
            }
            if (ok == maxOk) { // Redis compares every replica of such a primary, failed ones too
                for (ClusterNode r : t.replicasOf(n.id())) {
                    if (r.id().compareTo(candidate) < 0) {
                        candidate = r.id();
                    }
                }
            }
        }
        if (target == null || !candidate.equals(myId) || nowMs - orphanedSince.get(target) <= DELAY_MS) {
            return null;
        }
        return target;
    }

    /** Redis's clusterCountNonFailingSlaves: the replicas of {@code primaryId} not flagged failed. */
    private static int workingReplicas(Topology t, String primaryId) {
        int ok = 0;
        for (ClusterNode r : t.replicasOf(primaryId)) {
            if (!t.isFailed(r.id())) {
                ok++;
            }
        }
        return ok;
    }

    /**
     * One applied topology with what the migration needs of it: each node's slot count (counted once per topology,
     * not per tick) and the primaries that are migration targets (Redis's {@code MIGRATE_TO} flag, which Redis keeps
     * per node from what it has seen; here it follows from the sequence of topologies): a primary with a replica (one
     * failed too); one that was a replica before (promoted); one that got its first slot while some primary had
     * replicas (Redis's clusterNodeSetSlotBit, issue redis#3043); a primary keeps the flag until its last replica
     * leaves it, and a replica never has it.
     *
     * <p>Immutable.
     */
    static final class Snapshot {
        final Topology topology;
        private final Map<String, Integer> slots;
        final Set<String> migrateTo;

        private Snapshot(Topology topology, Map<String, Integer> slots, Set<String> migrateTo) {
            this.topology = topology;
            this.slots = slots;
            this.migrateTo = migrateTo;
        }

        /** The snapshot of {@code t}, applied right after {@code before} (null: the first topology this node has). */
        static Snapshot after(Snapshot before, Topology t) {
            Map<String, Integer> slots = new HashMap<>();
            for (int s = 0; s < Topology.SLOTS; s++) {
                String o = t.owner(s);
                if (o != null) {
                    slots.merge(o, 1, Integer::sum);
                }
            }
            boolean anyReplica = false;
            for (ClusterNode n : t.nodes()) {
                ClusterNode p = n.isPrimary() ? null : t.node(n.primaryId());
                anyReplica |= p != null && p.isPrimary();
            }
            Topology prev = before == null ? null : before.topology;
            Set<String> flags = new TreeSet<>();
            for (ClusterNode n : t.nodes()) {
                if (!n.isPrimary()) {
                    continue;
                }
                ClusterNode was = prev == null ? null : prev.node(n.id());
                boolean hadReplicas = was != null && !prev.replicasOf(n.id()).isEmpty();
                boolean firstSlot = slots.getOrDefault(n.id(), 0) > 0 && (before == null || before.slots(n.id()) == 0);
                if (!t.replicasOf(n.id()).isEmpty() || was != null && !was.isPrimary() || anyReplica && firstSlot
                        || !hadReplicas && before != null && before.migrateTo.contains(n.id())) {
                    flags.add(n.id());
                }
            }
            return new Snapshot(t, Collections.unmodifiableMap(slots), Collections.unmodifiableSet(flags));
        }

        int slots(String nodeId) {
            return slots.getOrDefault(nodeId, 0);
        }
    }
}
