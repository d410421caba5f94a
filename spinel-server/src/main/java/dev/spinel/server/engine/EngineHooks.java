package dev.spinel.server.engine;

import dev.spinel.server.engine.Engine.SlotRouter;
import dev.spinel.server.engine.ports.KeyObserver;
import dev.spinel.server.engine.ports.ReplicationFeed;
import dev.spinel.server.engine.ports.ReplicationGate;

import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * What other layers install into the engine: the append-only log's propagator, the replication stream
 * and refusals, the replica and close listeners, cluster mode's slot router, the gRPC key observer,
 * CLIENT LIST's line for ACL LOG, and the persistence layer's disk-error check. Each is null (or a
 * default) while its layer is off, so dispatch pays one field read per hook it consults.
 *
 * <p>Thread-safety: every hook but the slot router is a volatile field, installed or removed on any
 * thread and read once per use; the slot router is installed before any client connects (the event
 * loops start after it, so they see it).
 */
public final class EngineHooks {
    /** CLIENT LIST's line of a client, for ACL LOG entries (installed by the ACL command's registration). */
    private volatile Function<Session, String> clientInfo = s -> "id=" + s.id();
    /** The append-only log's hook, or null when it is off. */
    private volatile Propagator propagator;
    /** The replication stream, fed by the propagator; null while no replica ever attached. */
    private volatile ReplicationFeed replicationFeed;
    /** Replication's refusals (NOREPLICAS, READONLY, MASTERDOWN); null on a master without min-replicas-to-write. */
    private volatile ReplicationGate replicationGate;
    /** Told when a session closes (replication forgets a replica's link); null when nobody listens. */
    private volatile Consumer<Session> closeListener;
    /** Other front ends' view of key changes (gRPC); null when none runs. */
    private volatile KeyObserver keyObserver;
    /** Which sessions are replicas attached to this master (CLIENT LIST flags=S, CLIENT KILL TYPE replica). */
    private volatile Predicate<Session> replicaClients;
    /**
     * Redis's {@code writeCommandsDeniedByDiskError}: the persistence layer's reason to refuse writes
     * (and PING) after a failed save or log write, or null to accept them.
     */
    private volatile Supplier<String> diskError;
    /** Told after FLUSHALL emptied every database (the persistence layer stops a BGSAVE); null when none. */
    private volatile Consumer<Session> flushAllListener;
    private SlotRouter slotRouter;
    /** Cluster mode: passes PUBLISH and SPUBLISH messages on to other nodes; null outside cluster mode. */
    private volatile ClusterPublish clusterPublish;

    /** Client eviction's check of a client whose memory grew (maxmemory-clients); null in an engine without it. */
    private volatile Consumer<Session> clientGrew;

    EngineHooks() {
    }

    public Consumer<Session> clientGrew() {
        return clientGrew;
    }

    public void clientGrew(Consumer<Session> check) {
        this.clientGrew = check;
    }

    public void diskError(Supplier<String> check) {
        this.diskError = check;
    }

    /** The disk-error refusal of writes now, or null (see {@link #diskError(Supplier)}); two volatile reads when all is well. */
    String diskRefusal() {
        Supplier<String> disk = diskError;
        return disk == null ? null : disk.get();
    }

    /** Installs the listener told after each FLUSHALL, with the session that ran it (one listener: persistence's). */
    public void flushAllListener(Consumer<Session> r) {
        this.flushAllListener = r;
    }

    /** FLUSHALL, run by {@code s}, emptied every database (its stripes still held). */
    public void flushedAll(Session s) {
        Consumer<Session> r = flushAllListener;
        if (r != null) {
            r.accept(s);
        }
    }

    public Propagator propagator() {
        return propagator;
    }

    /** Installs (or with null removes) the append-only log's hook. */
    public void propagator(Propagator p) {
        this.propagator = p;
    }

    /** The replication stream the propagator also feeds, or null (one volatile read per propagated write). */
    public ReplicationFeed replicationFeed() {
        return replicationFeed;
    }

    public void replicationFeed(ReplicationFeed feed) {
        this.replicationFeed = feed;
    }

    public void replicaClients(Predicate<Session> p) {
        this.replicaClients = p;
    }

    /** True when {@code s} is the connection of a replica that did SYNC/PSYNC here. */
    public boolean isReplicaClient(Session s) {
        Predicate<Session> p = replicaClients;
        return p != null && p.test(s);
    }

    /** Installs (null: removes) replication's refusals; see {@link ReplicationGate}. */
    public void replicationGate(ReplicationGate gate) {
        this.replicationGate = gate;
    }

    ReplicationGate replicationGate() {
        return replicationGate;
    }

    /** Why replication refuses a write by {@code s} now (NOREPLICAS, READONLY), or null. */
    String replicationWriteRefusal(Session s) {
        ReplicationGate g = replicationGate;
        return g == null ? null : g.refusal(s.isReplicationApplier(), true, false);
    }

    /** Installs cluster mode's router; called before any client connects. */
    public void slotRouter(SlotRouter r) {
        this.slotRouter = r;
    }

    SlotRouter slotRouter() {
        return slotRouter;
    }

    /** Installs cluster mode's messages to other nodes (Redis's bus PUBLISH and PUBLISHSHARD messages). */
    public void clusterPublish(ClusterPublish bus) {
        this.clusterPublish = bus;
    }

    public ClusterPublish clusterPublish() {
        return clusterPublish;
    }

    /** What cluster mode's bus carries for pub/sub; called on event loops, so it must not block. */
    public interface ClusterPublish {
        /** PUBLISH: to every other node's subscribers. */
        void publish(byte[] channel, byte[] message);

        /**
         * SPUBLISH on this node when it is a replica: to its primary's and the primary's other replicas' subscribers
         * (a primary's reach its replicas through the replication stream).
         */
        void publishShard(byte[] channel, byte[] message);
    }

    /** Installs the listener told of every closed session (one listener: replication's). */
    public void closeListener(Consumer<Session> l) {
        this.closeListener = l;
    }

    Consumer<Session> closeListener() {
        return closeListener;
    }

    /** Installs (or, with null, removes) the observer of key changes made by commands. */
    public void keyObserver(KeyObserver observer) {
        this.keyObserver = observer;
    }

    KeyObserver keyObserver() {
        return keyObserver;
    }

    public void clientInfo(Function<Session, String> describe) {
        this.clientInfo = describe;
    }

    /** The client's CLIENT LIST line (as ACL LOG and the output-limit warning quote it). */
    public String clientInfo(Session s) {
        return clientInfo.apply(s);
    }
}
