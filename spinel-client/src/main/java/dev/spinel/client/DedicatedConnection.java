package dev.spinel.client;

import java.util.concurrent.CompletableFuture;

/**
 * A connection of its own, borrowed from the client's small pool, for what must not share the
 * multiplexed connection: WATCH/MULTI/EXEC transactions and sequences of blocking commands.
 * {@link #close} returns it to the pool (or closes it if it is not in a clean state).
 *
 * <p>Between {@link #multi()} and {@link #exec()}, commands sent through {@link #async()} are queued by
 * the server; their futures complete when EXEC answers (with the command's own result or error), or
 * fail with {@link TransactionAbortedException} when a WATCHed key changed.
 *
 * <p>Thread-safe, but a transaction is a sequence: issue it from one thread (or in order).
 */
public interface DedicatedConnection<K, V> extends AutoCloseable {
    AsyncCommands<K, V> async();

    SyncCommands<K, V> sync();

    /** {@code WATCH key [key ...]} */
    @SuppressWarnings("unchecked")
    CompletableFuture<String> watch(K... keys);

    /** {@code UNWATCH} */
    CompletableFuture<String> unwatch();

    /** {@code MULTI}: starts queuing. */
    CompletableFuture<String> multi();

    /** {@code EXEC}: true if the transaction ran, false if a WATCHed key changed (nothing ran). */
    CompletableFuture<Boolean> exec();

    /** {@code DISCARD}: the queued commands' futures fail. */
    CompletableFuture<String> discard();

    /** Returns the connection to the pool. */
    @Override
    void close();
}
