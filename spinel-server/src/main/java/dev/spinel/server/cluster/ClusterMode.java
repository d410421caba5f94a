package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.PeerView;
import dev.spinel.cluster.ClusterTopology;
import dev.spinel.cluster.EndpointType;
import dev.spinel.cluster.NodesFile;
import dev.spinel.cluster.RaftTopology;
import dev.spinel.cluster.Topology;
import dev.spinel.cluster.TopologyChange;
import dev.spinel.cluster.TopologyException;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.log.Log;
import dev.spinel.server.replication.GossipOffset;
import dev.spinel.server.replication.Replication;
import dev.spinel.store.SlotIndex;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A node in cluster mode ({@code cluster-enabled yes}): its topology ({@link ClusterTopology}, on Raft:
 * {@link RaftTopology}, its log under {@code dir/cluster-raft}), the
 * per-slot view dispatch routes by ({@link SlotRouting}, rebuilt on each change), {@code nodes.conf}
 * rewritten on each change as Redis keeps it, and the replication role the topology gives this node
 * (a replica in the topology replicates its primary through REPLICAOF's machinery).
 *
 * <p>Thread-safety: the routing snapshot is volatile; topology changes arrive one at a time from the
 * topology's thread; MEET's joining runs on a thread of its own.
 */
public final class ClusterMode implements AutoCloseable {
    private final ServerConfig config;
    private final Engine engine;
    private final Replication replication;
    private volatile ClusterTopology topology;
    private final Path nodesFile;
    private volatile int busPort;
    private final SelfListing selfListing = new SelfListing();
    /** The client port this node listens on. */
    private volatile int clientPort;
    /** nodes.conf as read at start (null: a new node). */
    private final NodesFile.Loaded loaded;
    private volatile SlotRouting routing;
    /** The topology last applied (guarded by this object's monitor). */
    private Topology lastApplied;
    private final ExecutorService meetings = Executors.newSingleThreadExecutor(DaemonThreads.named("cluster-meet"));
    private final ExecutorService rejoins = Executors.newSingleThreadExecutor(DaemonThreads.named("cluster-rejoin"));
    /** Fencing and failure detection, every {@link RaftTiming#cronPeriodMs}; keyed commands check the lease themselves. */
    private final ScheduledExecutorService cron = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("cluster-cron"));
    /** The pace of this node's Raft server and the node timeout it allows. */
    private final RaftTiming raftTiming = new RaftTiming();
    private final Failovers failovers;
    /** Replicas moving to orphaned primaries (cluster-migration-barrier), primaries left without slots following. */
    private final ReplicaMigration migration;
    /** When (System.nanoTime() ms) this node last knew itself in contact with the Raft majority. */
    private final ContactClock contact = new ContactClock(System.nanoTime() / 1_000_000);
    /** Cut off from the majority for more than half the node timeout: serves nothing (cluster_state:fail). */
    private volatile boolean cutOff;
    /** A {@link #rejoin} is under way (set and cleared on the cron thread and the meeting thread). */
    private volatile boolean resyncing;
    /** One CLUSTER RESET at a time (not the monitor: topology listeners take that one). */
    private final Object resetLock = new Object();
    private volatile boolean resetting;

    /** The extra MEET argument of a node asking the node it met to bring its group in. */
    public static final String JOIN = Meeting.JOIN;
    /** The extra MEET argument of a node asking for this one's Raft group id ({@link #raftGroup}). */
    public static final String GROUP = Meeting.GROUP;
    private final Meeting meeting;
    /** The extra MEET argument of another node's link that carries its PUBLISHes ({@link PublishBus}). */
    public static final String BUS_LINK = PublishBus.LINK;
    private final PublishBus publishBus;
    /** This node's suspicions of the others (Redis's PFAIL, {@code fail?}). */
    private final PeerWatch peerWatch;
    /** Slots just handed to another primary, answered with -ASK to it until it has applied the change. */
    private final Handovers handovers;
    private final RemovedNodes removed = new RemovedNodes();
    /** Ends the waits of clients blocked on slots this node no longer serves (set before the cron starts). */
    private volatile BlockedRedirects blockedRedirects;
    /** The last topology applied was one of the recovered log's replay: its roles are to be acted on at the end. */
    private volatile boolean replayDeferred;
    /** What this node announces of itself (ports, hostname, nofailover), committed to the topology. */
    private final SelfAnnouncement announcement;

    private ClusterMode(ServerConfig config, Engine engine, Replication replication, Path nodesFile,
                        NodesFile.Loaded loaded) {
        this.config = config;
        this.engine = engine;
        this.replication = replication;
        this.nodesFile = nodesFile;
        this.loaded = loaded;
        this.failovers = new Failovers(() -> topology, replication, config, meetings);
        this.migration = new ReplicaMigration(config, () -> topology, meetings);
        this.meeting = new Meeting(() -> topology, meetings, removed);
        this.peerWatch = new PeerWatch(() -> topology.current(), () -> PeerCall.credentials(config));
        this.publishBus = new PublishBus(() -> topology.current(), () -> topology.myId(), () -> PeerCall.credentials(config));
        this.announcement = new SelfAnnouncement(config, () -> topology, meetings);
        this.handovers = new Handovers(() -> topology,
                () -> 2 * raftTiming.nodeTimeoutMs(config.clusterNodeTimeout.value()), this::reroute);
    }

    /**
     * Cluster mode for a server about to register its commands: reads {@code nodes.conf}, if any (a corrupt
     * one stops the start, as in Redis). {@link #start} follows once the server listens.
     */
    public static ClusterMode create(ServerConfig config, Engine engine, Replication replication) throws IOException {
        Path file = Path.of(config.dir.value()).resolve(config.clusterConfigFile.value());
        return new ClusterMode(config, engine, replication, file, NodesFile.read(file));
    }

    /**
     * Whether nodes.conf, read at start, names this node a replica: the RDB loaded then continues its primary's
     * history (PSYNC with its ID), as Redis's loadDataFromDisk asks clusterNodeIsSlave(myself).
     */
    public boolean loadedAsReplica() {
        return loaded != null && !loaded.topology().node(loaded.myId()).isPrimary();
    }

    /**
     * Installs the slot router, before the server listens (so every client is routed; until {@link #start}
     * keyed commands get CLUSTERDOWN).
     */
    public void installRouter(CommandTable table) {
        engine.hooks().slotRouter(new SlotRouter(this, config, engine.keyspace().db(0), table));
        blockedRedirects = new BlockedRedirects(engine.blocking(), table, this::endpointType);
    }

    /**
     * Starts the topology for a server listening on {@code port}. The keyspace must have been built
     * slot-indexed.
     */
    public void start(int port) {
        int bus = config.clusterPort.value() != 0 ? (int) config.clusterPort.value() : port + 10000;
        this.busPort = bus;
        this.clientPort = port;
        String myId;
        Topology initial;
        if (loaded != null) {
            myId = loaded.myId();
            initial = loaded.topology();
            ClusterNode me = initial.node(myId);
            if (me.port() != port || me.busPort() != bus) {
                initial = Topology.withNode(initial, me.withAddress(me.host(), port, bus));
            }
            Log.notice("Node configuration loaded, I'm " + myId.substring(0, 8));
        } else {
            myId = ClusterNode.newId();
            initial = Topology.of(new ClusterNode(myId, config.clusterAnnounceIp.value(), port, bus, null, 0));
            Log.notice("No cluster configuration found, I'm " + myId);
        }
        startTopology(initial.node(myId), initial, loaded == null); // a new node's half-made Raft storage is wiped
        engine.hooks().clusterPublish(publishBus);
        announcement.start(port, bus);
        cron.schedule(this::tick, raftTiming.cronPeriodMs(), TimeUnit.MILLISECONDS);
        config.onApply(config.clusterNodeTimeout, this::retime);
    }

    /** CONFIG SET cluster-node-timeout: a node alone in its cluster restarts Raft at the new pace ({@link RaftTiming}). */
    private void retime() {
        synchronized (resetLock) {
            ClusterTopology old = topology;
            Topology t = old.current();
            if (raftTiming.differs(config.clusterNodeTimeout.value()) && t.nodes().size() == 1 && t.node(old.myId()) != null) {
                old.close();
                startTopology(t.node(old.myId()), t, false);
            }
        }
    }

    /**
     * Fencing: a node that has not been in contact with the Raft majority for half the node timeout reports
     * cluster_state:fail and serves no keys, so an old primary cut off from the others stops taking writes
     * before the majority side (after the whole node timeout) promotes its replica. Then the clients blocked on
     * slots no longer served here are redirected ({@link BlockedRedirects}) and, on the Raft leader, the failure
     * detection runs ({@link Failovers#detect}).
     */
    private void tick() {
        try {
            ClusterTopology t = topology;
            // A Raft heartbeat comes every 150 ms or more and a PING answer takes more than Redis's 1 ms on a JVM: a
            // shorter timeout (the Tcl units use 1 and 500 ms) would fence and flag nodes that are up (RaftTiming).
            long timeout = raftTiming.nodeTimeoutMs(config.clusterNodeTimeout.value());
            long now = System.nanoTime() / 1_000_000;
            Topology view = t.current(); // alone, a node is its own majority (also while its Raft server restarts)
            boolean alone = view.nodes().size() == 1 && view.node(t.myId()) != null;
            boolean off = contact.cutOff(now, alone ? 0 : t.majorityContactAgeMs(), timeout);
            if (off && !cutOff) {
                cutOff = true;
                Log.warning("Cluster state changed: fail (no contact with the majority for " + contact.sinceContact(now) + " ms)");
                reroute();
            } else if (!off && cutOff && !resyncing) {
                resyncing = true;
                rejoins.execute(this::rejoin);
            }
            BlockedRedirects redirects = blockedRedirects;
            if (redirects != null) {
                redirects.sweep(routing, now);
            }
            if (replayDeferred && !t.replaying()) {
                applied(t.current()); // the recovered log's replay ended on an entry that published no topology
            }
            failovers.detect(timeout);
            peerWatch.watch(t.current(), t.myId(), timeout);
            migration.tick(stateOk(), peerWatch::suspected, now);
        } catch (RuntimeException e) {
            Log.warning("cluster cron: " + e);
        }
        if (!cron.isShutdown()) { // the next tick at the pace of the Raft server running now
            cron.schedule(this::tick, raftTiming.cronPeriodMs(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Back in contact: serves again only once it has applied every change the leader had applied (a read
     * through the leader, not a log entry: no lock held, no commit needed), so an old primary learns of its
     * failover before taking a write. On a thread of its own: it may wait, and MEETs must not wait for it.
     */
    private void rejoin() {
        try {
            topology.catchUp();
            cutOff = false;
            Log.notice("Cluster state changed: ok (in contact with the majority again)");
            reroute();
        } catch (TopologyException e) {
            Log.warning("Back in contact with the cluster, but could not catch up: " + e.getMessage());
        } finally {
            resyncing = false;
        }
    }

    private synchronized void reroute() {
        routing = new SlotRouting(topology.current(), topology.myId(), config.clusterRequireFullCoverage.value(), cutOff,
                handovers.snapshot());
    }

    /** Starts Raft for {@code self} (its log under dir/cluster-raft, or a new group when that is empty). */
    private void startTopology(ClusterNode self, Topology initial, boolean wipeOnRetry) {
        String raftHost = config.clusterAnnounceIp.value().isEmpty() ? "127.0.0.1" : config.clusterAnnounceIp.value();
        ClusterTopology t = null;
        // After a RESET the port was just released by the previous Raft server, and a bus port in the ephemeral
        // range may be held for a moment by an outgoing connection: a few tries.
        for (int attempt = 0; t == null; attempt++) {
            try {
                t = RaftTopology.start(self, raftHost, nodesFile.resolveSibling("cluster-raft"), initial,
                        raftTiming.starting(config.clusterNodeTimeout.value()));
            } catch (IOException | TopologyException | RuntimeException e) {
                Log.warning("Raft did not start (try " + (attempt + 1) + "): " + e.getMessage());
                if (attempt >= 20) {
                    throw new IllegalStateException("Cannot start the cluster topology (Raft on port " + self.busPort()
                            + "): " + e.getMessage(), e);
                }
                try {
                    Thread.sleep(100);
                    if (wipeOnRetry) {
                        RaftStorageDir.deleteTree(nodesFile.resolveSibling("cluster-raft"));
                    }
                } catch (IOException ie) {
                    e.addSuppressed(ie);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(ie);
                }
            }
        }
        this.topology = t;
        t.listen(this::applied);
        t.listenMoves(meeting::follow);
        applied(t.current());
    }

    private synchronized void applied(Topology t) {
        String myId = topology.myId();
        Topology before = lastApplied;
        lastApplied = t;
        removed.applied(before, t);
        selfListing.applied(t, myId);
        boolean replay = topology.replaying(); // an old topology: no role acted on (ReplayWatch); tick() takes the last
        replayDeferred = replay;
        migration.applied(before, t, myId, replay);
        handovers.update(before, t, myId, topology.currentIndex()); // before the routing that no longer has the slot
        routing = new SlotRouting(t, myId, config.clusterRequireFullCoverage.value(), cutOff, handovers.snapshot());
        if (replay) {
            return;
        }
        ShardChannelRelease.apply(before, t, myId, engine.pubSub());
        try {
            NodesFile.write(nodesFile, t, myId);
        } catch (IOException e) {
            Log.warning("Could not write the cluster config file " + nodesFile + ": " + e.getMessage());
        }
        announcement.applied(t, myId);
        ClusterNode me = t.node(myId);
        if (me == null) {
            return;
        }
        if (me.isPrimary()) {
            if (replication.isReplica()) {
                replication.promote();
            } else if (engine.replicaRole().active()) { // the role a replica by nodes.conf loaded with (Persistence)
                engine.replicaRole().active(false);
                engine.keyspace().lazyExpiry(true);
            }
        } else {
            ClusterNode primary = t.node(me.primaryId());
            if (primary != null) {
                replication.replicaOf(primary.host().isEmpty() ? "127.0.0.1" : primary.host(), primary.port());
            }
        }
    }

    SlotRouting routing() {
        return routing;
    }

    /** Keys are served only until then (System.nanoTime in ms; {@link ContactClock}). */
    long leaseUntilMs() {
        return contact.leaseUntilMs();
    }

    /** The topology itself (tests hold a node's apply back through a listener of their own). */
    ClusterTopology clusterTopology() {
        return topology;
    }

    /** The topology as CLUSTER NODES shows it: always with a line for this node ({@link SelfListing}). */
    public Topology nodesView() {
        return selfListing.view(topology(), myId());
    }

    /** This node's view of the others' liveness (CLUSTER NODES' {@code fail?}, ping-sent, pong-recv). */
    public PeerView peers() {
        return peerWatch;
    }

    public String myId() {
        return topology.myId();
    }

    /** The id of the Raft group this node is in (two nodes are in one cluster when it is the same). */
    public String raftGroup() {
        return resetting ? "" : topology.groupId(); // a MEET still running on a node this one left ends (Meeting)
    }

    public Topology topology() {
        return topology.current();
    }

    public Path nodesFile() {
        return nodesFile;
    }

    /** Redis's cluster_state: ok when the slots needed are served. */
    public boolean stateOk() {
        SlotRouting r = routing;
        return r != null && r.ok;
    }

    public int busPort() {
        return busPort;
    }

    /** Which address of a node clients are given (cluster-preferred-endpoint-type). */
    public EndpointType endpointType() {
        return EndpointType.of(config.clusterPreferredEndpointType.value());
    }

    /** This node's keys by slot (db 0, the only one in cluster mode). */
    public SlotIndex slotIndex() {
        return engine.keyspace().db(0).slotIndex();
    }

    /**
     * The replication offset of node {@code id} as this node knows it (CLUSTER SHARDS, SLOTS): its own as it tells
     * the others ({@link GossipOffset}), another's as that node last told it ({@link PeerWatch}).
     */
    public long offsetOf(String id) {
        return id.equals(myId()) ? GossipOffset.of(replication) : peerWatch.offset(id);
    }

    /** Whether node {@code id} left the topology within the last minute ({@link RemovedNodes}). */
    public boolean removedRecently(String id) {
        return removed.removedRecently(id);
    }

    /** Commits a change; a refusal becomes the Redis error the client gets. */
    public Topology commit(TopologyChange change) {
        try {
            return topology.commit(change);
        } catch (TopologyException e) {
            throw new RedisError(e.getMessage());
        }
    }

    /**
     * CLUSTER RESET, as Redis 7.0's clusterReset: a replica becomes an empty primary; the node forgets the
     * others and every slot and migration; HARD also takes a new node id and sets the epochs to 0. A node
     * in a cluster of several leaves it first (its record removed on every node, its Raft vote dropped);
     * then its Raft server starts again alone (the peer id is the node id, so a new id needs a new server).
     */
    public void reset(boolean hard) {
        synchronized (resetLock) {
            resetting = true;
            try {
                resetLocked(hard);
            } finally {
                resetting = false;
            }
        }
    }

    private void resetLocked(boolean hard) {
        ClusterTopology old = topology;
        Topology t = old.current();
        ClusterNode me = t.node(old.myId());
        if (me != null && !me.isPrimary()) {
            replication.promote();
            var ks = engine.keyspace();
            ks.clearAll(() -> {
                for (int i = 0; i < ks.databases(); i++) {
                    engine.watches().touchPresent(i, ks.db(i), null);
                }
            }, removed -> {
            });
        }
        try {
            if (t.nodes().size() == 1 && !hard) {
                old.reset(null);
                return;
            }
            old.leave();
        } catch (TopologyException e) {
            throw new RedisError(e.getMessage());
        }
        old.close();
        ClusterNode self = new ClusterNode(hard ? ClusterNode.newId() : old.myId(), me == null ? "" : me.host(),
                me == null ? 0 : me.port(), busPort, null, hard || me == null ? 0 : me.configEpoch());
        Path raftDir = nodesFile.resolveSibling("cluster-raft");
        try {
            RaftStorageDir.deleteTree(raftDir);
        } catch (IOException e) {
            throw new RedisError("ERR CLUSTER RESET could not clear " + raftDir + ": " + e.getMessage());
        }
        Topology alone = Topology.withCurrentEpoch(Topology.of(self), hard ? 0 : t.currentEpoch()); // SOFT keeps it
        ShardChannelRelease.apply(t, alone, old.myId(), engine.pubSub()); // its new topology's apply has no before
        startTopology(self, alone, true);
        if (hard) {
            Log.notice("Node hard reset, now I'm " + self.id());
        }
    }

    /**
     * CLUSTER MEET: makes this node's cluster and the one of the node at host:port one cluster, in the background
     * (Redis's handshake is asynchronous too; {@link Meeting}); failures are logged.
     */
    public void meet(String host, int port, int bus, boolean joinRequest) {
        meeting.meet(host, port, bus, joinRequest);
    }

    /**
     * CLUSTER FAILOVER [FORCE|TAKEOVER] on this replica, in the background as in Redis (the command
     * answers OK once accepted).
     */
    public void failover(boolean force) {
        Topology t = topology.current();
        ClusterNode me = nodesView().node(myId()); // listed also while a join into another group is being applied
        if (me.isPrimary()) {
            throw new RedisError("ERR You should send CLUSTER FAILOVER to a replica");
        }
        ClusterNode primary = t.node(me.primaryId());
        if (primary == null) {
            throw new RedisError("ERR I'm a replica but my master is unknown to me");
        }
        if (!force && !replication.linkUp()) {
            throw new RedisError("ERR Master is down or failed, please use CLUSTER FAILOVER FORCE");
        }
        failovers.manual(primary, force);
    }

    @Override
    public void close() {
        engine.hooks().clusterPublish(null);
        handovers.close();
        publishBus.close();
        peerWatch.close();
        cron.shutdownNow();
        rejoins.shutdownNow();
        meetings.shutdownNow();
        ClusterTopology t = topology;
        if (t != null) {
            t.close();
        }
    }
}
