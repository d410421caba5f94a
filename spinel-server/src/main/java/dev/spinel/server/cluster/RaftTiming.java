package dev.spinel.server.cluster;

/**
 * How fast this node's Raft server runs, from {@code cluster-node-timeout}, and the node timeout the fencing and the
 * failure detection then use.
 *
 * <p>Raft's election timeout is a tenth of the node timeout, between 300 and 1500 ms, and a leader sends a heartbeat
 * every half of it: every 150 ms up to a node timeout of 3000 ms (the Tcl suites' and acceptance tests' timeouts),
 * every 750 ms at Redis's default of 15000. The heartbeats are what a cluster costs when it has nothing to decide: on
 * a 2-core machine their wake-ups (a gRPC round trip each, on several threads) were 8-10 % of the three servers' CPU
 * under memtier's load (docs/benchmarks.md). The fencing needs a few heartbeats within half the node timeout, so the
 * node timeout used is at least ten thirds of the running election timeout (1000 ms at the fastest pace, as before).
 *
 * <p>Ratis reads its timings when its server starts. They are taken at start and at CLUSTER RESET; a CONFIG SET that
 * asks for another pace restarts the Raft server of a node alone in its cluster (nothing to disturb: the Tcl suites
 * set the timeout right after a reset), and on a node with peers waits for the next start, the fencing's floor
 * keeping it safe meanwhile.
 *
 * <p>Thread-safety: the pace is volatile, set by whoever starts the Raft server (under ClusterMode's reset lock).
 */
final class RaftTiming {
    /** The shortest node timeout the fencing and the failure detection use (cluster-node-timeout below it is raised). */
    static final long MIN_NODE_TIMEOUT_MS = 1000;
    static final long FASTEST_MS = 300;
    static final long SLOWEST_MS = 1500;

    private volatile long rpcTimeoutMinMs = FASTEST_MS;

    /** Raft's shortest election timeout for a node timeout of {@code nodeTimeoutMs}. */
    static long rpcTimeoutMinMs(long nodeTimeoutMs) {
        return Math.clamp(Math.max(MIN_NODE_TIMEOUT_MS, nodeTimeoutMs) / 10, FASTEST_MS, SLOWEST_MS);
    }

    /** A Raft server starts for {@code nodeTimeoutMs}: the election timeout it gets. */
    long starting(long nodeTimeoutMs) {
        long ms = rpcTimeoutMinMs(nodeTimeoutMs);
        rpcTimeoutMinMs = ms;
        return ms;
    }

    /**
     * The cluster cron's period: Redis's 10 Hz at the fastest pace, down to 4 Hz at the slowest (Redis's default node
     * timeout). The cron renews the fencing's lease, which lasts half the node timeout (7500 ms at the default), and
     * runs the failure detection, which waits for the whole node timeout: a tick every 250 ms is still many within
     * either, and its work (Ratis's role information, the watched peers, blocked clients' redirects) was a sixth of an
     * idle node's CPU at 10 Hz (docs/benchmarks.md, "background threads and the router's clock read").
     */
    long cronPeriodMs() {
        return Math.clamp(rpcTimeoutMinMs / 6, 100, 250);
    }

    /** Whether {@code nodeTimeoutMs} asks for another pace than the running server's. */
    boolean differs(long nodeTimeoutMs) {
        return rpcTimeoutMinMs(nodeTimeoutMs) != rpcTimeoutMinMs;
    }

    /** The node timeout the fencing and the failure detection use when {@code nodeTimeoutMs} is configured. */
    long nodeTimeoutMs(long nodeTimeoutMs) {
        return Math.max(Math.max(MIN_NODE_TIMEOUT_MS, nodeTimeoutMs), rpcTimeoutMinMs * 10 / 3);
    }
}
