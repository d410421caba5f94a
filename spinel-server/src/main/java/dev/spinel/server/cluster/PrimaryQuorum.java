package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.ClusterTopology;
import dev.spinel.cluster.Topology;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Redis's rule for an automatic failover (clusterHandleSlaveFailover's {@code needed_quorum}): a majority of the
 * primaries serving slots, the failed one counted, must take part. In Redis the live primaries vote when the
 * election runs, a node timeout after the failure; a primary that died meanwhile does not. Here the Raft leader asks
 * them at decision time: a primary takes part when it is this node, or when it is still in Raft contact with the
 * leader (silent for no more than the node timeout) and answers a PING on its client port now (all asked at once,
 * each within the probe timeout). The leader's heartbeat silence alone cannot tell a primary that died a second ago
 * from a live one (legacy test 11-manual-takeover kills three of five primaries about a second apart: the last one
 * still looked fresh when the first one's timeout passed). The Raft commit alone would not do either: every node
 * votes in Raft, replicas too, so the replicas of a majority of the primaries could be promoted.
 *
 * <p>Thread-safety: immutable once counted; {@link #count} blocks for at most the probe timeout.
 */
final class PrimaryQuorum {
    private final int size;
    private final int reachable;

    private PrimaryQuorum(int size, int reachable) {
        this.size = size;
        this.reachable = reachable;
    }

    /** Counts the primaries serving slots and those that take part in the failover of {@code failed}. */
    static PrimaryQuorum count(ClusterTopology ct, ClusterNode failed, Map<String, Long> silence, long nodeTimeoutMs,
            int probeTimeoutMs) {
        Topology t = ct.current();
        int size = 0;
        AtomicInteger reachable = new AtomicInteger();
        List<Thread> probes = new ArrayList<>();
        for (ClusterNode p : t.nodes()) {
            if (!p.isPrimary() || t.slotCount(p.id()) == 0) {
                continue;
            }
            size++;
            if (p.id().equals(failed.id())) {
                continue;
            }
            if (p.id().equals(ct.myId())) {
                reachable.incrementAndGet();
                continue;
            }
            Long quiet = silence.get(p.id());
            if (quiet != null && quiet <= nodeTimeoutMs) {
                probes.add(Thread.ofVirtual().name("cluster-quorum").start(() -> {
                    if (Failovers.answers(p, probeTimeoutMs)) {
                        reachable.incrementAndGet();
                    }
                }));
            }
        }
        for (Thread probe : probes) {
            try {
                probe.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new PrimaryQuorum(size, 0);
            }
        }
        return new PrimaryQuorum(size, reachable.get());
    }

    /** Redis's {@code (size / 2) + 1}. */
    int needed() {
        return size / 2 + 1;
    }

    boolean reached() {
        return reachable >= needed();
    }

    @Override
    public String toString() {
        return reachable + " of the " + size + " primaries serving slots are reachable, a majority (" + needed() + ") is needed";
    }
}
