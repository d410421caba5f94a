package dev.spinel.client.internal;

import dev.spinel.protocol.RespValue;

/**
 * Receives the frames a connection did not ask for (RESP3 push frames; in RESP2, the pub/sub
 * arrays of a subscribed connection), on the connection's event loop. Must not block.
 */
public interface PushHandler {
    /** Returns true if it consumed the value; false lets it complete the oldest pending command. */
    boolean onFrame(RespValue value);

    /** The connection is ready again after a reconnect (resubscribe here). */
    default void onReconnected(Connection connection) {
    }
}
