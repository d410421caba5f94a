package dev.spinel.server.cluster;

/**
 * Redis's {@code cluster-replica-validity-factor}: a replica whose data is too old may not replace its failed primary
 * in an automatic failover (Redis's clusterHandleSlaveFailover, "Disconnected from master for longer than allowed").
 * The data age is the time since the replica last heard from its primary (the link up) or since the link went down,
 * less the node timeout (the time the failure took to detect, as Redis subtracts it); it is too old past
 * {@code repl-ping-replica-period} seconds plus the node timeout times the factor. A factor of 0 sets no limit; a
 * manual failover (CLUSTER FAILOVER) ignores it, as in Redis. Each replica's own settings count, as each Redis replica
 * judges itself: the Raft leader reads them from the candidate ({@link Failovers}).
 *
 * <p>Thread-safety: stateless.
 */
final class ReplicaValidity {
    private ReplicaValidity() {
    }

    /** The data age (ms) a replica's INFO replication shows, at Redis's one-second resolution. */
    static long dataAgeMs(String replicationInfo) {
        String down = PeerCall.infoField(replicationInfo, "master_link_down_since_seconds");
        if (down != null) {
            return Long.parseLong(down) * 1000;
        }
        String io = PeerCall.infoField(replicationInfo, "master_last_io_seconds_ago");
        return io == null || io.startsWith("-") ? 0 : Long.parseLong(io) * 1000;
    }

    /** Whether data {@code dataAgeMs} old is too old for an automatic failover under the replica's own settings. */
    static boolean tooOld(long dataAgeMs, long nodeTimeoutMs, long factor, long pingPeriodSeconds) {
        if (factor == 0) {
            return false;
        }
        long age = dataAgeMs > nodeTimeoutMs ? dataAgeMs - nodeTimeoutMs : dataAgeMs;
        return age > pingPeriodSeconds * 1000 + nodeTimeoutMs * factor;
    }
}
