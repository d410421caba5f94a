package dev.spinel.server.engine.ports;

/**
 * What replication refuses before a command runs, as Redis's processCommand does: NOREPLICAS on a
 * master with fewer good replicas than {@code min-replicas-to-write}, READONLY on a read-only replica,
 * MASTERDOWN on a replica whose link is down while {@code replica-serve-stale-data} is no. The engine
 * asks only while one is installed (a replica, or a master with min-replicas-to-write set), so a plain
 * master pays one null field read per command.
 *
 * <p>Thread-safety: called from every event loop (and the script thread) concurrently.
 */
public interface ReplicationGate {
    /**
     * The error text (without its '-') refusing a client's command, or null to let it run.
     *
     * @param fromMaster the client is this replica's link to its master, or the replay of the append-only log (neither is
     *                   ever refused, as Redis's master and AOF clients)
     * @param write     the command writes (for EXEC: one of its queued commands does)
     * @param denyStale the command lacks Redis's {@code stale} flag (it may not run on a stale replica)
     */
    String refusal(boolean fromMaster, boolean write, boolean denyStale);

    /** Whether this is a replica whose link is down while {@code replica-serve-stale-data} is no. */
    boolean stale();
}
