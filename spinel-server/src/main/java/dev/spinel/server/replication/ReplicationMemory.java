package dev.spinel.server.replication;

import dev.spinel.server.config.ServerConfig;

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

    private final ServerConfig config;

    public ReplicationMemory(Replication replication, ServerConfig config) {
        this.replication = replication;
        this.config = config;
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

    /**
     * mem_not_counted_for_evict's replication part, as Redis 7.0's freeMemoryGetNotCountedMemory: what is held for
     * the replicas beyond the configured backlog (their pending output, and the ring grown past repl-backlog-size
     * to keep a full resync's stream). Counting it would make a slow replica's stream evict keys, each eviction a
     * DEL added to that stream in turn.
     */
    public long notCountedForEviction() {
        return replicaOutputs() + Math.max(0, backlog() - config.replBacklogSize.value());
    }
}
