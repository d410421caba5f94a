package dev.spinel.server.engine.clients;

import dev.spinel.server.engine.ports.ClientConnection;
import dev.spinel.store.Database;
import dev.spinel.store.Keyspace;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Redis's {@code used_memory} by Spinel's accounting: what INFO memory, MEMORY STATS and the maxmemory
 * checks read. As Redis's, it is more than the dataset: a start-up baseline (the server's own structures
 * before any key exists), the clients' buffers, the script and function caches and the replication backlog
 * are added to the dataset's accounted bytes. A server with no key is therefore over {@code maxmemory 1}, as
 * Redis is, and its writes are refused.
 *
 * <p>The baseline models the fixed structures Redis 7.0 counts at start (shared objects, the command table,
 * one dictionary pair per database) with Spinel's own: a fixed part and, per database, its stripes.
 * The clients' part is sampled by the server's cron ({@link #sampleClients}), as Redis's clientsCron
 * samples its clients' memory, so that no command pays for it; it is as old as one cron tick at most, but for a
 * client that leaves: its last sample is taken off at once, as Redis frees a client's buffers with it (a
 * server whose clients' output filled it accepts writes again as soon as they are gone).
 *
 * <p>Thread-safety: every figure is read without locks from any thread (the dataset's counters are
 * plain reads of the stripes' fields, a close estimate while writes go on); {@link #sampleClients} may run
 * on any one thread at a time, and reads other loops' buffers racily, as an estimate.
 */
public final class MemoryAccounting {
    /** The server's fixed structures (command table, shared objects, Lua state, configuration). */
    static final long STARTUP_FIXED = 768L * 1024;
    /** Per database: its stripes (a segment, its lock and an empty table each). */
    static final long PER_STRIPE = 96;

    private final Keyspace keyspace;
    private final ClientRegistry<?> clients;
    private final long startup;
    private volatile LongSupplier scripts = () -> 0;
    private volatile LongSupplier backlog = () -> 0;
    private volatile LongSupplier replicaOutputs = () -> 0;
    private volatile LongSupplier notCounted = () -> 0;
    private volatile LongSupplier countedReplication = () -> 0;
    /** The replicas' connections: their buffers are replication's ({@link #replicaOutputs()}), not the clients'. */
    private volatile Predicate<Client> replica = c -> false;
    /** A replica connection's share of the replication buffer plus its queued output (CLIENT LIST omem). */
    private volatile ToLongFunction<Object> replicaHeld = c -> 0;
    private final AtomicLong clientBuffers = new AtomicLong();

    public MemoryAccounting(Keyspace keyspace, ClientRegistry<?> clients) {
        this.keyspace = keyspace;
        this.clients = clients;
        this.startup = STARTUP_FIXED + (long) keyspace.databases() * Database.SEGMENTS * PER_STRIPE;
        clients.onRemove(this::left);
    }

    /** A client left the registry: its buffers no longer count. */
    private void left(Client c) {
        ClientConnection conn = c.connection();
        long sample = conn.memorySample();
        if (sample != 0) {
            conn.memorySample(0);
            clientBuffers.addAndGet(-sample);
        }
    }

    /** Where the script cache's and the function libraries' bytes come from (Redis's lua.caches, functions.caches). */
    public void scripts(LongSupplier bytes) {
        this.scripts = bytes;
    }

    /**
     * Where replication's bytes come from: the backlog's, and what is held for the replicas (their pending output),
     * whose connections ({@code isReplica}) the clients' sample then leaves out.
     */
    public void replication(LongSupplier backlogBytes, LongSupplier replicaOutputBytes, Predicate<Client> isReplica) {
        this.backlog = backlogBytes;
        this.replicaOutputs = replicaOutputBytes;
        this.replica = isReplica;
    }

    /**
     * Where a replica connection's held stream bytes come from: on a master and on an intermediate replica alike,
     * as both keep their replicas' stream in the one buffer shared with the backlog (Redis 7.0 counts a sub-replica
     * on an intermediate replica the same way as a replica on its master).
     */
    public void replicaHeld(ToLongFunction<Object> heldBySession) {
        this.replicaHeld = heldBySession;
    }

    /** The stream bytes replica connection {@code session} has not had written to its socket; 0 for other clients. */
    public long replicaHeld(Object session) {
        return replicaHeld.applyAsLong(session);
    }

    /** used_memory: the overhead plus the dataset. */
    public long used() {
        return overhead() + dataset();
    }

    /** used_memory_overhead: everything but the keys and their values. */
    public long overhead() {
        return startup + clientBuffers.get() + scripts.getAsLong() + backlog.getAsLong() + replicaOutputs.getAsLong();
    }

    /**
     * Where mem_not_counted_for_evict's bytes come from: replication's beyond the configured backlog, which the
     * maxmemory check leaves out, as Redis's freeMemoryGetNotCountedMemory (Spinel has no AOF buffer to add);
     * and the replication bytes the check does count (the backlog up to repl-backlog-size), which it reads
     * instead of subtracting one figure from the other (see {@link #usedForEviction()}).
     */
    public void notCountedForEviction(LongSupplier bytes, LongSupplier countedReplicationBytes) {
        this.notCounted = bytes;
        this.countedReplication = countedReplicationBytes;
    }

    /**
     * used_memory less mem_not_counted_for_evict, as the maxmemory check reads it. Computed from the counted part
     * directly: {@code used() - notCountedForEviction()} reads the replicas' output twice, and a replica's
     * connection that writes a few hundred KB to its socket between the two reads made the difference show that
     * much more than was held, evicting a key for nothing.
     */
    public long usedForEviction() {
        return startup + clientBuffers.get() + scripts.getAsLong() + countedReplication.getAsLong() + dataset();
    }

    /** mem_not_counted_for_evict (see {@link #notCountedForEviction(LongSupplier)}). */
    public long notCountedForEviction() {
        return notCounted.getAsLong();
    }

    /** used_memory_startup. */
    public long startup() {
        return startup;
    }

    /** mem_clients_normal: the clients' buffers at the last sample. */
    public long clients() {
        return clientBuffers.get();
    }

    /** The script cache and function libraries. */
    public long scripts() {
        return scripts.getAsLong();
    }

    /** mem_replication_backlog. */
    public long replicationBacklog() {
        return backlog.getAsLong();
    }

    /** mem_clients_slaves: what the master holds for its replicas besides the backlog. */
    public long replicaOutputs() {
        return replicaOutputs.getAsLong();
    }

    /** used_memory_dataset: the keys and values, by the store's own accounting. */
    public long dataset() {
        long n = 0;
        for (int d = 0; d < keyspace.databases(); d++) {
            Database db = keyspace.db(d);
            for (int i = 0; i < Database.SEGMENTS; i++) {
                n += db.segmentAt(i).memory();
            }
        }
        return n;
    }

    /**
     * Recomputes the clients' part: per client what CLIENT LIST's tot-mem counts (query buffer and its free
     * space, reply buffer, bytes queued in the transport). Run by the server's cron and by INFO. A client running
     * a command meanwhile writes into its loop's shared scratch, which is no one's: counting it (80 KiB) whenever the
     * cron caught a client mid-command made used_memory jump and evicted keys for nothing.
     */
    public void sampleClients() {
        long n = 0;
        Predicate<Client> isReplica = replica;
        for (Client s : clients.all()) {
            if (isReplica.test(s)) {
                continue;
            }
            try {
                ClientConnection c = s.connection();
                long m = c.queryBufferLength() + c.queryBufferFree() + s.out().ownCapacity() + c.pendingOutputBytes();
                c.memorySample(m);
                n += m;
            } catch (RuntimeException e) {
                // a connection closing meanwhile: it no longer counts
            }
        }
        clientBuffers.set(n);
    }
}
