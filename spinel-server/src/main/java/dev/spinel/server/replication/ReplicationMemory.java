package dev.spinel.server.replication;

import dev.spinel.server.config.ServerConfig;

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

    private final ServerConfig config;

    public ReplicationMemory(Replication replication, ServerConfig config) {
        this.replication = replication;
        this.config = config;
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

    /**
     * CLIENT LIST omem of replica connection {@code session}: what it has not taken of the stream, on a master or on a
     * replica forwarding its master's stream to its own replicas (0 for any other client, or before a stream exists).
     */
    public long heldBy(Object session) {
        ReplicationStream st = replication.stream();
        return st == null ? 0 : st.heldBy(session);
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

    /**
     * The replication bytes the maxmemory check counts: the backlog up to repl-backlog-size, which is
     * {@code backlog() + replicaOutputs() - notCountedForEviction()} read at one instant.
     */
    public long countedForEviction() {
        return Math.min(backlog(), config.replBacklogSize.value());
    }
}
