package dev.spinel.server.cluster;

/**
 * The fencing's clock: when this node last knew itself in contact with the Raft majority, from the contact age the
 * Raft server reports at each cluster cron tick. A node out of contact for more than half the node timeout is cut off
 * (serves no keys until it has caught up with the leader, {@link ClusterMode}).
 *
 * <p>A node that did not run at all for that long (SIGSTOP, a long pause, a starved JVM) is cut off too, whatever its
 * Raft server reports on waking: the Raft threads may run first and hear from the leader (a fresh contact) before
 * the entries the majority committed meanwhile (its own failover) are applied, and without a cut-off the node would
 * take writes on its stale topology until then. The gap is seen as the time since the previous tick.
 *
 * <p>Between two ticks the same rule holds at each request through a lease ({@link #leaseUntilMs}): keys are served
 * only until the last contact gets older than half the node timeout, checked against the clock when the request is
 * routed (a read: against the loop's latest reading in its read batch, SlotRouter). A node resumed after a pause
 * answers its first requests before its cron thread has run again; they find the lease expired.
 *
 * <p>Thread-safety: {@link #cutOff} and {@link #sinceContact} are confined to the cluster cron thread; the lease is
 * read by the command threads (volatile).
 */
final class ContactClock {
    private long lastContactMs;
    private long lastTickMs;
    /** No lease before the first tick: the start itself waits for the Raft server (ClusterStartTest). */
    private volatile long leaseUntilMs = Long.MAX_VALUE;

    ContactClock(long nowMs) {
        lastContactMs = nowMs;
        lastTickMs = Long.MIN_VALUE; // the first tick has no gap to judge (the start itself may take seconds)
    }

    /**
     * One tick at {@code nowMs} (System.nanoTime in ms), the Raft server reporting its last contact with the majority
     * {@code contactAgeMs} ago ({@code Long.MAX_VALUE}: none known): whether the node is cut off now. In contact, the
     * lease is renewed.
     */
    boolean cutOff(long nowMs, long contactAgeMs, long nodeTimeoutMs) {
        long gap = lastTickMs == Long.MIN_VALUE ? 0 : nowMs - lastTickMs;
        lastTickMs = nowMs;
        if (gap > nodeTimeoutMs / 2) {
            lastContactMs = Math.min(lastContactMs, nowMs - gap); // nothing heard while not running counts
            return true;
        }
        if (contactAgeMs != Long.MAX_VALUE) {
            lastContactMs = Math.max(lastContactMs, nowMs - contactAgeMs);
        }
        boolean off = nowMs - lastContactMs > nodeTimeoutMs / 2;
        if (!off) {
            leaseUntilMs = lastContactMs + nodeTimeoutMs / 2;
        }
        return off;
    }

    /** The time (System.nanoTime in ms) after which this node serves no keys until a tick renews the lease. */
    long leaseUntilMs() {
        return leaseUntilMs;
    }

    /** How long (ms) before {@code nowMs} the last contact was. */
    long sinceContact(long nowMs) {
        return nowMs - lastContactMs;
    }
}
