package dev.spinel.client.internal;

import dev.spinel.client.ClientOptions;
import dev.spinel.client.ConnectionException;
import dev.spinel.client.RedisUri;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The small pool of dedicated connections for blocking commands and transactions, so they never
 * stall the shared connection. Borrowing never waits for another borrower: when no idle connection
 * is left a new one is opened; at most {@link ClientOptions#dedicatedPoolSize()} idle ones are kept.
 * A connection is only taken back clean (nothing outstanding, not in a transaction); otherwise closed.
 *
 * <p>Thread-safe.
 */
public final class ConnectionPool {
    private final Transport transport;
    private final RedisUri uri;
    private final ClientOptions options;
    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
    private final AtomicInteger idleCount = new AtomicInteger();
    private volatile boolean closed;

    public ConnectionPool(Transport transport, RedisUri uri, ClientOptions options) {
        this.transport = transport;
        this.uri = uri;
        this.options = options;
    }

    public CompletableFuture<Connection> borrow() {
        if (closed) {
            return CompletableFuture.failedFuture(new ConnectionException("client is closed"));
        }
        for (Connection c; (c = idle.pollFirst()) != null; ) {
            idleCount.decrementAndGet();
            if (c.isOpen()) {
                return CompletableFuture.completedFuture(c);
            }
        }
        return Connection.open(transport, uri, options, null);
    }

    /** Returns a connection; {@code clean} is false when its state is unknown (then it is closed). */
    public void release(Connection c, boolean clean) {
        if (clean && !closed && c.isOpen() && c.outstanding() == 0) {
            if (idleCount.incrementAndGet() <= options.dedicatedPoolSize()) {
                idle.addFirst(c);
                if (closed && idle.remove(c)) { // the pool closed meanwhile
                    idleCount.decrementAndGet();
                    c.close();
                }
                return;
            }
            idleCount.decrementAndGet();
        }
        c.close();
    }

    public CompletableFuture<Void> close() {
        closed = true;
        CompletableFuture<?>[] all = idle.stream().map(Connection::close).toArray(CompletableFuture[]::new);
        idle.clear();
        return CompletableFuture.allOf(all);
    }
}
