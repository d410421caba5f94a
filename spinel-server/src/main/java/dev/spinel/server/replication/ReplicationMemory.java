package dev.spinel.server.replication;

/**
 * The memory replication holds, for INFO memory and used_memory: the backlog ring ({@code mem_replication_backlog},
 * which also keeps the stream for replicas in a full resync, shared by them) and what the master holds for its
 * replicas besides it, their connections' output not yet written to the socket ({@code mem_clients_slaves});
 * {@code mem_total_replication_buffers} is both. Redis 7.0 shares one buffer between its backlog and its replicas
 * throughout; Spinel copies from the backlog to an online replica's connection, so those bytes are its own.
 *
 * <p>Thread-safety: reads volatile fields and the transports' atomic counters from any thread; an estimate, as
 * the buffers change while it sums them.
 */
public final class ReplicationMemory {
    private final Replication replication;

    public ReplicationMemory(Replication replication) {
        this.replication = replication;
    }

    /** The backlog ring's bytes (0 without a backlog). */
    public long backlog() {
        ReplicationStream st = replication.stream();
        return st != null ? st.capacity() : 0;
    }

    /** The replicas' pending output. */
    public long replicaOutputs() {
        long n = 0;
        for (ReplicaLink l : replication.replicas()) {
            n += l.outputBytes();
        }
        return n;
    }
}
