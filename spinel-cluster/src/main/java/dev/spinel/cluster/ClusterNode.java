package dev.spinel.cluster;

/**
 * One node of the cluster as the topology records it: its 40-hex-character id, the address clients
 * and peers reach it at (host may be empty until a peer has told the node its address, as in Redis),
 * its bus (Raft) port, the primary it replicates ({@code null} for a primary) and its config epoch.
 *
 * <p>Immutable.
 */
public record ClusterNode(String id, String host, int port, int busPort, String primaryId, long configEpoch) {

    public boolean isPrimary() {
        return primaryId == null;
    }

    public ClusterNode withPrimary(String primary) {
        return new ClusterNode(id, host, port, busPort, primary, configEpoch);
    }

    public ClusterNode withEpoch(long epoch) {
        return new ClusterNode(id, host, port, busPort, primaryId, epoch);
    }

    public ClusterNode withAddress(String h, int p, int bus) {
        return new ClusterNode(id, h, p, bus, primaryId, configEpoch);
    }
}
