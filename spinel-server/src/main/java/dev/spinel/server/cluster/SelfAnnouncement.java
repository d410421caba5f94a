package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.ClusterTopology;
import dev.spinel.cluster.Topology;
import dev.spinel.cluster.TopologyChange;
import dev.spinel.cluster.TopologyException;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.log.Log;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * What this node tells every other node about itself, which Redis carries in each gossip ping and Spinel commits
 * to the topology: the ports others show for it ({@code cluster-announce-port}, {@code cluster-announce-bus-port}),
 * its hostname ({@code cluster-announce-hostname}) and its {@code nofailover} flag
 * ({@code cluster-replica-no-failover}). A CONFIG SET of one commits it there and then (the command answers once
 * it is committed). The hostname and the flag are also committed again whenever an applied topology shows this
 * node otherwise than its settings say: a node brought into a group is known there as its MEET saw it, and a node
 * restarted with a changed config file starts from the topology it had.
 *
 * <p>Thread-safety: CONFIG SET's commits run on the client's thread, the others on the given single worker (at
 * most one queued at a time); the topology's commits are safe from any thread.
 */
final class SelfAnnouncement {
    private final ServerConfig config;
    private final Supplier<ClusterTopology> topology;
    private final ExecutorService worker;
    private final AtomicBoolean settingsQueued = new AtomicBoolean();
    private volatile int clientPort;
    private volatile int busPort;

    SelfAnnouncement(ServerConfig config, Supplier<ClusterTopology> topology, ExecutorService worker) {
        this.config = config;
        this.topology = topology;
        this.worker = worker;
    }

    /** Once the topology has started: the ports the node listens on; listens to the parameters' changes. */
    void start(int client, int bus) {
        this.clientPort = client;
        this.busPort = bus;
        config.clusterAnnouncePort.listen(v -> ports());
        config.clusterAnnounceBusPort.listen(v -> ports());
        config.onApply(config.clusterReplicaNoFailover, this::settings);
        config.onApply(config.clusterAnnounceHostname, this::settings);
        if (config.clusterAnnouncePort.value() != 0 || config.clusterAnnounceBusPort.value() != 0) {
            worker.execute(this::ports); // a restarted node's commit may wait for the others to be back
        }
    }

    /**
     * The ports every node shows for this one (CLUSTER NODES, SLOTS, SHARDS, MOVED). The Raft server keeps
     * listening on the real bus port.
     */
    private void ports() {
        ClusterTopology t = topology.get();
        ClusterNode me = t.current().node(t.myId());
        if (me == null) {
            return;
        }
        int port = config.clusterAnnouncePort.value() != 0 ? (int) config.clusterAnnouncePort.value() : clientPort;
        int bus = config.clusterAnnounceBusPort.value() != 0 ? (int) config.clusterAnnounceBusPort.value() : busPort;
        if (me.port() == port && me.busPort() == bus) {
            return;
        }
        try {
            t.commit(new TopologyChange.SetAddress(me.id(), me.host(), port, bus));
        } catch (TopologyException e) {
            Log.warning("Could not announce ports " + port + "/" + bus + ": " + e.getMessage());
        }
    }

    /** The hostname and the nofailover flag, unless the topology shows them already. */
    private void settings() {
        ClusterTopology t = topology.get();
        TopologyChange.NodeSettings change = wanted(t.myId());
        if (t.current().node(t.myId()) == null || change.inEffect(t.current())) {
            return;
        }
        try {
            t.commit(change);
        } catch (TopologyException e) {
            Log.warning("Could not announce this node's hostname and failover setting: " + e.getMessage());
        }
    }

    private TopologyChange.NodeSettings wanted(String myId) {
        return new TopologyChange.NodeSettings(myId, config.clusterAnnounceHostname.value(),
                config.clusterReplicaNoFailover.value());
    }

    /** A topology was applied (not a replayed one): commits the settings again if it shows them otherwise. */
    void applied(Topology t, String myId) {
        if (t.node(myId) != null && !wanted(myId).inEffect(t) && settingsQueued.compareAndSet(false, true)) {
            worker.execute(() -> {
                settingsQueued.set(false);
                settings();
            });
        }
    }
}
