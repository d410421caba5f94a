package dev.spinel.cluster;

/**
 * Redis 7.0's {@code cluster-preferred-endpoint-type}: which address of a node clients are given
 * ({@link ClusterNode#endpoint}).
 */
public enum EndpointType {
    IP, HOSTNAME, UNKNOWN_ENDPOINT;

    /** The type a configuration value names ({@code ip}, {@code hostname}, {@code unknown-endpoint}). */
    public static EndpointType of(String configValue) {
        return switch (configValue) {
            case "ip" -> IP;
            case "hostname" -> HOSTNAME;
            case "unknown-endpoint" -> UNKNOWN_ENDPOINT;
            default -> throw new IllegalArgumentException("not an endpoint type: " + configValue);
        };
    }
}
