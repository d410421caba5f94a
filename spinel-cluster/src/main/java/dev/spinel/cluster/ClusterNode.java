package dev.spinel.cluster;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * One node of the cluster as the topology records it: its 40-hex-character id, the address clients
 * and peers reach it at (host may be empty until a peer has told the node its address, as in Redis),
 * its bus (Raft) port, the primary it replicates ({@code null} for a primary), its config epoch, and what
 * the node announces of itself as Redis gossips it: its hostname ({@code cluster-announce-hostname}, empty for
 * none) and whether it is set never to take over from its primary ({@code cluster-replica-no-failover}, Redis's
 * {@code nofailover} flag).
 *
 * <p>Immutable.
 */
public record ClusterNode(String id, String host, int port, int busPort, String primaryId, long configEpoch,
                          String hostname, boolean noFailover) {

    /** A new node id: 40 random hex characters, as Redis's node names. */
    public static String newId() {
        byte[] b = new byte[20];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** A node that announces no hostname and may take over (Redis's defaults). */
    public ClusterNode(String id, String host, int port, int busPort, String primaryId, long configEpoch) {
        this(id, host, port, busPort, primaryId, configEpoch, "", false);
    }

    public boolean isPrimary() {
        return primaryId == null;
    }

    public ClusterNode withPrimary(String primary) {
        return new ClusterNode(id, host, port, busPort, primary, configEpoch, hostname, noFailover);
    }

    public ClusterNode withEpoch(long epoch) {
        return new ClusterNode(id, host, port, busPort, primaryId, epoch, hostname, noFailover);
    }

    public ClusterNode withAddress(String h, int p, int bus) {
        return new ClusterNode(id, h, p, bus, primaryId, configEpoch, hostname, noFailover);
    }

    public ClusterNode withSettings(String name, boolean noTakeover) {
        return new ClusterNode(id, host, port, busPort, primaryId, configEpoch, name, noTakeover);
    }

    /**
     * The address of this node a client is given (CLUSTER SLOTS's first field, SHARDS' endpoint, MOVED and ASK), as
     * Redis 7.0's getPreferredEndpoint: the IP; the hostname ({@code ?} when it announces none); or, for
     * {@link EndpointType#UNKNOWN_ENDPOINT}, the empty string (the client is to use the address it already has).
     */
    public String endpoint(EndpointType type) {
        return switch (type) {
            case IP -> host;
            case HOSTNAME -> hostname.isEmpty() ? "?" : hostname;
            case UNKNOWN_ENDPOINT -> "";
        };
    }
}
