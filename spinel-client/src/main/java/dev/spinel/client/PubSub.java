package dev.spinel.client;

import java.util.concurrent.CompletableFuture;

/**
 * A subscriber connection of its own (a subscribed connection cannot run other commands).
 * Subscriptions are remembered and restored after a reconnect. Futures complete when the server has
 * confirmed every channel or pattern of the call. Publish with {@link AsyncCommands#publish}.
 *
 * <p>Thread-safe.
 */
public interface PubSub<K, V> extends AutoCloseable {
    void addListener(PubSubListener<K, V> listener);

    void removeListener(PubSubListener<K, V> listener);

    /** {@code SUBSCRIBE channel [channel ...]} */
    @SuppressWarnings("unchecked")
    CompletableFuture<Void> subscribe(K... channels);

    /** {@code UNSUBSCRIBE channel [channel ...]}; with no channels, from every subscribed channel. */
    @SuppressWarnings("unchecked")
    CompletableFuture<Void> unsubscribe(K... channels);

    /** {@code PSUBSCRIBE pattern [pattern ...]} */
    @SuppressWarnings("unchecked")
    CompletableFuture<Void> psubscribe(K... patterns);

    /** {@code PUNSUBSCRIBE pattern [pattern ...]}; with none, from every pattern. */
    @SuppressWarnings("unchecked")
    CompletableFuture<Void> punsubscribe(K... patterns);

    /** {@code SSUBSCRIBE shardchannel [shardchannel ...]} */
    @SuppressWarnings("unchecked")
    CompletableFuture<Void> ssubscribe(K... shardChannels);

    /** {@code SUNSUBSCRIBE shardchannel [shardchannel ...]}; with none, from every shard channel. */
    @SuppressWarnings("unchecked")
    CompletableFuture<Void> sunsubscribe(K... shardChannels);

    @Override
    void close();
}
