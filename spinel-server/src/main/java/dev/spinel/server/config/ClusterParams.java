package dev.spinel.server.config;

import java.util.List;

/**
 * Cluster mode's parameters (docs/cluster.md), declared apart from {@link ServerConfig}, which extends this class
 * so that they are read as every other parameter is ({@code config.clusterNodeTimeout}).
 *
 * <p>Thread-safety: as {@link ServerConfig}: registered at construction, values volatile.
 */
public abstract sealed class ClusterParams extends ConfigRegistry permits ServerConfig {
    /** Redis Cluster mode (docs/cluster.md): slots, redirections, CLUSTER commands, the topology on Raft. */
    public final Params.Bool clusterEnabled = add(new Params.Bool("cluster-enabled", false, false, null));
    /** Where the node's view of the cluster is written, in Redis's format (relative to dir). */
    public final Params.Text clusterConfigFile = add(new Params.Text("cluster-config-file", false, "nodes.conf", null, null));
    /** The cluster bus port, here the Raft port (0: port + 10000, as Redis). */
    public final Params.Int clusterPort = add(new Params.Int("cluster-port", false, 0, 0, 65535, null));
    public final Params.Int clusterNodeTimeout = add(new Params.Int("cluster-node-timeout", true, 15000, 0, Long.MAX_VALUE, null));
    public final Params.Bool clusterRequireFullCoverage = add(new Params.Bool("cluster-require-full-coverage", true, true, null));
    public final Params.Bool clusterAllowReadsWhenDown = add(new Params.Bool("cluster-allow-reads-when-down", true, false, null));
    public final Params.Bool clusterAllowPubsubshardWhenDown = add(new Params.Bool("cluster-allow-pubsubshard-when-down", true, true, null));
    /** The address this node gives others (empty: learnt from the first peer met, as Redis). */
    public final Params.Text clusterAnnounceIp = add(new Params.Text("cluster-announce-ip", true, "", null, null));
    /**
     * A primary left without slots by a reshard becomes a replica of the node that took them, and replicas move to
     * orphaned primaries (Redis's default yes).
     */
    public final Params.Bool clusterAllowReplicaMigration = add(new Params.Bool("cluster-allow-replica-migration", true, true, null));
    /**
     * How many working replicas a primary keeps when one of them moves to an orphaned primary (cluster/ReplicaMigration):
     * a replica moves only while its primary has more than this many, as Redis's.
     */
    public final Params.Int clusterMigrationBarrier = add(new Params.Int("cluster-migration-barrier", true, 1, 0,
            Integer.MAX_VALUE, null));
    /** How old a replica's data may be for it to replace its primary automatically (cluster/ReplicaValidity; 0: no limit). */
    public final Params.Int clusterReplicaValidityFactor = add(new Params.Int("cluster-replica-validity-factor", true, 10, 0,
            Integer.MAX_VALUE, null, "cluster-slave-validity-factor"));
    /** A replica with this set never replaces its failed primary automatically (CLUSTER FAILOVER still does), as Redis's. */
    public final Params.Bool clusterReplicaNoFailover = add(new Params.Bool("cluster-replica-no-failover", true, false, null,
            "cluster-slave-no-failover"));
    /** The hostname every node shows for this one (CLUSTER NODES, SLOTS, SHARDS; MOVED by preference); empty: none. */
    public final Params.Text clusterAnnounceHostname = add(new Params.Text("cluster-announce-hostname", true, "",
            ClusterParams::announcedHostname, null));
    /**
     * Which address of a node this one gives clients in CLUSTER SLOTS, SHARDS' endpoint, MOVED and ASK: its IP, its
     * announced hostname ({@code ?} when it has none) or none ({@code unknown-endpoint}: an empty one), as Redis 7.0.
     */
    public final Params.Enum clusterPreferredEndpointType = add(new Params.Enum("cluster-preferred-endpoint-type", true,
            "ip", List.of("ip", "hostname", "unknown-endpoint"), null));
    /** The client port this node gives others (0: the port it listens on), as Redis's. */
    public final Params.Int clusterAnnouncePort = add(new Params.Int("cluster-announce-port", true, 0, 0, 65535, null));
    /** Redis's announced TLS port, used only with tls-cluster, which Spinel has not: kept for CONFIG, not shown. */
    public final Params.Int clusterAnnounceTlsPort = add(new Params.Int("cluster-announce-tls-port", true, 0, 0, 65535, null));
    /** The bus (Raft) port this node gives others (0: the one it listens on). */
    public final Params.Int clusterAnnounceBusPort = add(new Params.Int("cluster-announce-bus-port", true, 0, 0, 65535, null));

    ClusterParams() {
    }

    /** Redis's checks of an announced hostname (isValidAnnouncedHostname), with its error texts. */
    private static void announcedHostname(String v) throws ConfigException {
        if (v.length() >= 256) {
            throw new ConfigException("Hostnames must be less than 256 characters");
        }
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.')) {
                throw new ConfigException("Hostnames may only contain alphanumeric characters, hyphens or dots");
            }
        }
    }
}
