package dev.spinel.server.replication;

/**
 * The replication offset a node tells the other cluster nodes, as Redis 7.0 puts it in every bus ping: a primary's
 * {@code master_repl_offset}; a replica's processed offset (Redis's replicationGetSlaveOffset: its master's, or the
 * cached master's while the link is down), 0 while it loads a full resync (Redis discards the cached master when the
 * new dataset starts to load) or before it has any history. CLUSTER SHARDS shows it ({@code loading} at 0 for a
 * replica) and CLUSTER SLOTS leaves out a replica at 0. Spinel has no bus: the other nodes read it with
 * {@code INFO spinel-gossip}, a section only Spinel has (Redis answers an unknown section with nothing), asked on
 * the connection their liveness PINGs went over; INFO has Redis's {@code loading} flag, so it is answered while the
 * node loads.
 *
 * <p>Stateless: reads the replication's volatile state from any thread.
 */
public final class GossipOffset {
    /** The INFO section that answers {@link #FIELD}. */
    public static final String SECTION = "spinel-gossip";
    /** Its one field: {@code spinel_gossip_offset:<offset>}. */
    public static final String FIELD = "spinel_gossip_offset";

    private GossipOffset() {
    }

    public static long of(Replication r) {
        MasterLink ml = r.masterLink();
        if (ml == null) {
            return r.offset();
        }
        if (r.engine().replicaRole().loading().any()) {
            return 0;
        }
        return Math.max(0, ml.processedOffset());
    }
}
