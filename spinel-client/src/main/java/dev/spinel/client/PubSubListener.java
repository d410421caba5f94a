package dev.spinel.client;

/**
 * Receives pub/sub messages, on the client's event loop: must not block (hand work to an executor).
 * An exception thrown by a listener is caught and does not affect the connection.
 */
public interface PubSubListener<K, V> {
    /** A message on a channel subscribed with SUBSCRIBE. */
    default void message(K channel, V message) {
    }

    /** A message on a channel matched by a pattern subscribed with PSUBSCRIBE. */
    default void message(K pattern, K channel, V message) {
    }

    /** A message on a shard channel subscribed with SSUBSCRIBE. */
    default void shardMessage(K shardChannel, V message) {
    }
}
