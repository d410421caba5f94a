package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.ClusterTopology;
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
import dev.spinel.server.replication.Replication;
import dev.spinel.store.SlotIndex;

import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

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
    /** nodes.conf as read at start (null: a new node). */
    private final NodesFile.Loaded loaded;
    private volatile SlotRouting routing;
    private final ExecutorService meetings = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "cluster-meet");
        t.setDaemon(true);
        return t;
    });

    /** The extra MEET argument of a lone node asking the node it met to bring it in. */
    public static final String JOIN = Meeting.JOIN;

    private ClusterMode(ServerConfig config, Engine engine, Replication replication, Path nodesFile,
                        NodesFile.Loaded loaded) {
        this.config = config;
        this.engine = engine;
        this.replication = replication;
        this.nodesFile = nodesFile;
        this.loaded = loaded;
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
     * Installs the slot router, before the server listens (so every client is routed; until {@link #start}
     * keyed commands get CLUSTERDOWN).
     */
    public void installRouter(CommandTable table) {
        engine.hooks().slotRouter(new SlotRouter(this, config, engine.keyspace().db(0), table));
    }

    /**
     * Starts the topology for a server listening on {@code port}. The keyspace must have been built
     * slot-indexed.
     */
    public void start(int port) {
        int bus = config.clusterPort.value() != 0 ? (int) config.clusterPort.value() : port + 10000;
        this.busPort = bus;
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
            myId = newNodeId();
            initial = Topology.of(new ClusterNode(myId, config.clusterAnnounceIp.value(), port, bus, null, 0));
            Log.notice("No cluster configuration found, I'm " + myId);
        }
        String raftHost = config.clusterAnnounceIp.value().isEmpty() ? "127.0.0.1" : config.clusterAnnounceIp.value();
        ClusterTopology t;
        try {
            t = RaftTopology.start(initial.node(myId), raftHost, nodesFile.resolveSibling("cluster-raft"), initial);
        } catch (IOException | TopologyException e) {
            throw new IllegalStateException("Cannot start the cluster topology (Raft on port " + bus + "): " + e.getMessage(), e);
        }
        this.topology = t;
        t.listen(this::applied);
        applied(t.current());
    }

    /** 40 random hex characters, as Redis's node names. */
    static String newNodeId() {
        byte[] b = new byte[20];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    private synchronized void applied(Topology t) {
        String myId = topology.myId();
        routing = new SlotRouting(t, myId, config.clusterRequireFullCoverage.value());
        try {
            NodesFile.write(nodesFile, t, myId);
        } catch (IOException e) {
            Log.warning("Could not write the cluster config file " + nodesFile + ": " + e.getMessage());
        }
        ClusterNode me = t.node(myId);
        if (me == null) {
            return;
        }
        if (me.isPrimary()) {
            if (replication.isReplica()) {
                replication.promote();
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

    public String myId() {
        return topology.myId();
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

    /** This node's keys by slot (db 0, the only one in cluster mode). */
    public SlotIndex slotIndex() {
        return engine.keyspace().db(0).slotIndex();
    }

    /** This node's replication offset (CLUSTER SHARDS). */
    public long replicationOffset() {
        return replication.offset();
    }

    /** Commits a change; a refusal becomes the Redis error the client gets. */
    public Topology commit(TopologyChange change) {
        try {
            return topology.commit(change);
        } catch (TopologyException e) {
            throw new RedisError(e.getMessage());
        }
    }

    /** CLUSTER RESET (hard: a new node id). */
    public void reset(boolean hard) {
        try {
            topology.reset(hard ? newNodeId() : null);
        } catch (TopologyException e) {
            throw new RedisError(e.getMessage());
        }
    }

    /**
     * CLUSTER MEET: asks the node at host:port for its own description and brings it into this cluster,
     * in the background (Redis's handshake is asynchronous too); failures are logged.
     */
    public void meet(String host, int port, int bus, boolean joinRequest) {
        meetings.execute(() -> {
            try {
                Meeting.meet(topology, topology.current().node(myId()).port(), host, port, bus, joinRequest);
            } catch (IOException | TopologyException | RuntimeException e) {
                Log.warning("CLUSTER MEET " + host + ":" + port + " failed: " + e.getMessage());
            }
        });
    }

    @Override
    public void close() {
        meetings.shutdownNow();
        ClusterTopology t = topology;
        if (t != null) {
            t.close();
        }
    }
}
