package dev.spinel.client.internal;

import dev.spinel.client.AsyncCommands;

import java.util.concurrent.CompletableFuture;

/**
 * The client's commands on its one shared connection; blocking commands go to a pooled dedicated
 * connection instead. Thread-safe.
 */
public final class SharedCommands<K, V> implements AllCommandsImpl<K, V> {
    private final Connection connection;
    private final ConnectionPool pool;
    private final Replies<K, V> replies;
    private final Sync sync = new Sync();

    public SharedCommands(Connection connection, ConnectionPool pool, Replies<K, V> replies) {
        this.connection = connection;
        this.pool = pool;
        this.replies = replies;
    }

    @Override
    public <T> CompletableFuture<T> dispatch(Command<T> command) {
        return connection.submit(command);
    }

    @Override
    public <T> CompletableFuture<T> dispatchBlocking(Command<T> command) {
        return pool.borrow().thenCompose(c -> {
            c.submit(command);
            // A blocking command that failed (timeout) may still be parked on the server: do not reuse that connection.
            return command.whenComplete((v, e) -> pool.release(c, e == null));
        });
    }

    @Override
    public Replies<K, V> replies() {
        return replies;
    }

    public AllSyncCommandsImpl<K, V> sync() {
        return sync;
    }

    private final class Sync implements AllSyncCommandsImpl<K, V> {
        @Override
        public AsyncCommands<K, V> async() {
            return SharedCommands.this;
        }
    }
}
