package dev.spinel.cluster;

/**
 * What one node knows of the others' liveness for CLUSTER NODES: its own suspicion (Redis's PFAIL, {@code fail?}) and
 * the times of its last question and answer (Redis's ping-sent and pong-recv columns, Unix time in milliseconds).
 *
 * <p>Implementations are read from any thread.
 */
public interface PeerView {
    /** A view that suspects nobody and shows {@code pong} as every node's pong-recv (nodes.conf, tests). */
    static PeerView fixed(long pong) {
        return new PeerView() {
            @Override
            public boolean suspected(String id) {
                return false;
            }

            @Override
            public long pingSent(String id) {
                return 0;
            }

            @Override
            public long pongReceived(String id) {
                return pong;
            }
        };
    }

    /** Whether this node has not heard from node {@code id} for longer than the node timeout. */
    boolean suspected(String id);

    /** When the question node {@code id} has not answered yet was sent (ms), 0 when none is waiting. */
    long pingSent(String id);

    /** When node {@code id} last answered (ms), 0 before it ever did. */
    long pongReceived(String id);
}
