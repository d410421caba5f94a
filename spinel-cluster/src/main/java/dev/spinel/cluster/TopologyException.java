package dev.spinel.cluster;

/**
 * A topology change refused, with Redis's error text for it (e.g. {@code ERR Slot 5 is already busy}),
 * or a change that could not be committed (no quorum in time).
 */
public final class TopologyException extends Exception {
    public TopologyException(String redisError) {
        super(redisError);
    }
}
