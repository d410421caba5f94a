package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.Topology;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The nodes that left this node's topology in the last minute (a FORGET, a node's own CLUSTER RESET), so that a
 * CLUSTER FORGET of one of them answers {@code +OK}. Redis forgets a node on one node at a time, and the tools that
 * remove a node send FORGET to every other node (redis-cli's {@code --cluster del-node}; the Tcl suites after a
 * CLUSTER RESET): here the first FORGET, or the reset node itself, removed it everywhere through Raft, and the next
 * ones would get {@code -ERR Unknown node} for a node their own FORGET would have removed. A minute, as Redis keeps
 * a forgotten node out of its gossip (CLUSTER_BLACKLIST_TTL).
 *
 * <p>A MEET under way also asks it ({@link #removedSince}): the node it met, brought in and gone again, has reset,
 * and is not asked back.
 *
 * <p>Thread-safety: {@link #applied} runs under ClusterMode's monitor, the queries on any thread.
 */
final class RemovedNodes {
    static final long TTL_MS = 60_000;
    private final Map<String, Long> removedAtMs = new ConcurrentHashMap<>();

    /** Notes the nodes of {@code before} that {@code after} no longer has; drops those back and those noted over a minute ago. */
    void applied(Topology before, Topology after) {
        long now = clockMs();
        removedAtMs.values().removeIf(at -> now - at > TTL_MS);
        removedAtMs.keySet().removeIf(id -> after.node(id) != null); // back (a soft reset node met again)
        if (before == null) {
            return;
        }
        for (ClusterNode n : before.nodes()) {
            if (after.node(n.id()) == null) {
                removedAtMs.put(n.id(), now);
            }
        }
    }

    /** Whether node {@code id} left the topology at or after {@code sinceMs} ({@link #clockMs}), not back since. */
    boolean removedSince(String id, long sinceMs) {
        Long at = removedAtMs.get(id);
        return at != null && at >= sinceMs;
    }

    /** The clock the removals are noted on. */
    static long clockMs() {
        return System.nanoTime() / 1_000_000;
    }

    /** Whether node {@code id} left the topology within the last minute (and has not come back). */
    boolean removedRecently(String id) {
        Long at = removedAtMs.get(id);
        return at != null && clockMs() - at <= TTL_MS;
    }
}
