package dev.spinel.server.replication;

/**
 * The memory replication holds, for INFO memory and used_memory: the backlog ring ({@code mem_replication_backlog},
 * which also keeps the stream for replicas in a full resync, shared by them) and what the master holds for its
 * replicas besides it, their connections' output not yet written to the socket ({@code mem_clients_slaves});
 * {@code mem_total_replication_buffers} is both. Redis 7.0 shares one buffer between its backlog and its replicas
 * throughout; so does Spinel, an online replica's connection taking the stream from the ring one chunk at a time.
 *
 * <p>Thread-safety: reads volatile fields and the transports' atomic counters from any thread; an estimate, as
 * the buffers change while it sums them.
 */
public final class ReplicationMemory {
    private final Replication replication;

    public ReplicationMemory(Replication replication) {
        this.replication = replication;
    }

    /**
     * The backlog's bytes (0 without a backlog): the ring, but at most repl-backlog-size while replicas are attached;
     * what the ring grew past it for them is theirs ({@link #replicaOutputs}), as Redis 7.0 splits its one buffer.
     */
    public long backlog() {
        ReplicationStream st = replication.stream();
        if (st == null) {
            return 0;
        }
        long ring = st.capacity();
        return replication.replicas().isEmpty() ? ring : Math.min(ring, st.configured());
    }

    /** The replicas' part: the ring past repl-backlog-size, kept for them, and the chunks their connections queue. */
    public long replicaOutputs() {
        long n = 0;
        for (ReplicaLink l : replication.replicas()) {
            n += l.outputBytes();
        }
        ReplicationStream st = replication.stream();
        if (st != null && !replication.replicas().isEmpty()) {
            n += Math.max(0, st.capacity() - st.configured());
        }
        return n;
    }
}
