package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterTopology;
import dev.spinel.cluster.SlotMove;
import dev.spinel.cluster.Topology;
import dev.spinel.server.log.Log;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Slots this node has just handed over: it was migrating them to another primary, and a SETSLOT NODE making that
 * primary the owner is applied here. The new owner may not have applied that change yet (a Raft follower applies
 * some time after the commit): meanwhile it still imports the slot and sends the slot's clients back here with
 * {@code -MOVED}, as Redis's importing node does, and this node's own {@code -MOVED} to it would bounce them between
 * the two until a client gives up. So, until the new owner is known to have applied the change, this node answers
 * {@code -ASK} to it instead: every cluster client follows it with ASKING, which the new owner serves whether it
 * still imports the slot or already owns it. A handover ends when the new owner confirms
 * ({@link ClusterTopology#awaitApplied}), after a bound (twice the node timeout: a new owner that never answers is
 * no better served by -MOVED), or as soon as the slot's owner changes again.
 *
 * <p>Thread-safety: {@link #update} is called by the topology listener (one change at a time); the confirmations run
 * on this class's own thread; the pending map is concurrent, and {@link #snapshot} copies it for a routing.
 */
final class Handovers implements AutoCloseable {
    private record Pending(String to, long index, long deadlineNanos) {
    }

    private final Map<Integer, Pending> pending = new ConcurrentHashMap<>();
    private final ExecutorService confirmations = Executors.newSingleThreadExecutor(DaemonThreads.named("cluster-handover"));
    private final Supplier<ClusterTopology> topology;
    private final LongSupplier boundMs;
    /** Rebuilds the routing once a handover ended. */
    private final Runnable reroute;

    Handovers(Supplier<ClusterTopology> topology, LongSupplier boundMs, Runnable reroute) {
        this.topology = topology;
        this.boundMs = boundMs;
        this.reroute = reroute;
    }

    /**
     * Told of the topology {@code after} (at log position {@code index}) applied here after {@code before}, before
     * the routing is rebuilt from it: records the slots handed over by that change and drops those whose owner
     * changed again.
     */
    void update(Topology before, Topology after, String myId, long index) {
        pending.entrySet().removeIf(e -> !e.getValue().to().equals(after.owner(e.getKey())));
        if (before == null) {
            return;
        }
        for (int s = 0; s < Topology.SLOTS; s++) {
            SlotMove m = before.migrating(s);
            if (m != null && m.nodeId().equals(myId) && myId.equals(before.owner(s)) && !m.peerId().equals(myId)
                    && m.peerId().equals(after.owner(s))) {
                int slot = s;
                Pending p = new Pending(m.peerId(), index,
                        System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMs.getAsLong()));
                pending.put(slot, p);
                confirmations.execute(() -> confirm(slot, p));
            }
        }
    }

    /** The slots handed over and not yet confirmed, with the id of the node each went to. */
    Map<Integer, String> snapshot() {
        if (pending.isEmpty()) {
            return Map.of();
        }
        Map<Integer, String> out = new HashMap<>();
        pending.forEach((slot, p) -> out.put(slot, p.to()));
        return out;
    }

    private void confirm(int slot, Pending p) {
        boolean known = false;
        try {
            long left = TimeUnit.NANOSECONDS.toMillis(p.deadlineNanos() - System.nanoTime());
            known = left > 0 && topology.get().awaitApplied(p.to(), p.index(), left);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return; // closing
        } catch (RuntimeException e) {
            Log.warning("Could not ask " + p.to() + " about slot " + slot + ": " + e);
        }
        if (!known) {
            Log.warning("Slot " + slot + " handed to " + p.to() + ", which did not confirm it in time: -MOVED to it from now on");
        }
        if (pending.remove(slot, p)) {
            reroute.run();
        }
    }

    @Override
    public void close() {
        confirmations.shutdownNow();
    }
}
