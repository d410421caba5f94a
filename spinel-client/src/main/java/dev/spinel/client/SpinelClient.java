package dev.spinel.client;

import dev.spinel.client.internal.ClientTls;
import dev.spinel.client.internal.Connection;
import dev.spinel.client.internal.ConnectionPool;
import dev.spinel.client.internal.DedicatedCommands;
import dev.spinel.client.internal.PubSubImpl;
import dev.spinel.client.internal.Replies;
import dev.spinel.client.internal.SharedCommands;
import dev.spinel.client.internal.Transport;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * An asynchronous client that pipelines by itself: one connection shared by any number of threads,
 * commands from all of them coalesced into few writes, no pool to size.
 * <pre>{@code
 * try (SpinelClient<String, String> client = SpinelClient.create("redis://localhost:6379/0")) {
 *     client.async().set("k", "v").thenCompose(ok -> client.async().get("k")).thenAccept(System.out::println);
 *     String v = client.sync().get("k");   // blocking facade; cheap on virtual threads
 * }
 * }</pre>
 * Futures complete on the client's event-loop thread: callbacks must not block (use the
 * {@code ...Async(fn, executor)} variants for slow work). Blocking commands (BLPOP...) and
 * transactions ({@link #dedicated()}) run on pooled connections of their own; pub/sub on
 * {@link #pubSub()}.
 *
 * <p>Thread-safe.
 */
public final class SpinelClient<K, V> implements AutoCloseable {
    private final Transport transport;
    private final Connection connection;
    private final ConnectionPool pool;
    private final Replies<K, V> replies;
    private final SharedCommands<K, V> commands;
    private final RedisUri uri;
    private final ClientOptions options;
    private final Set<PubSub<K, V>> subscribers = ConcurrentHashMap.newKeySet();

    private SpinelClient(Transport transport, Connection connection, RedisUri uri, ClientOptions options, Codec<K, V> codec) {
        this.transport = transport;
        this.connection = connection;
        this.uri = uri;
        this.options = options;
        this.pool = new ConnectionPool(transport, uri, options);
        this.replies = new Replies<>(codec);
        this.commands = new SharedCommands<>(connection, pool, replies);
    }

    /** A client with UTF-8 {@code String} keys and values and default options. */
    public static SpinelClient<String, String> create(String uri) {
        return create(uri, Codec.UTF8, ClientOptions.defaults());
    }

    public static SpinelClient<String, String> create(String uri, ClientOptions options) {
        return create(uri, Codec.UTF8, options);
    }

    /** A client with the given codec ({@link Codec#BYTES} for binary keys and values). */
    public static <K, V> SpinelClient<K, V> create(String uri, Codec<K, V> codec) {
        return create(uri, codec, ClientOptions.defaults());
    }

    /**
     * Connects (TCP, TLS for {@code rediss://} as {@link ClientOptions#tls()} says, then {@code HELLO 3}
     * with AUTH, or the RESP2 way when the server lacks HELLO, then SELECT) and returns once the
     * connection is ready.
     *
     * @throws ConnectionException  when the server cannot be reached, or the TLS handshake fails (the message says why)
     * @throws IllegalArgumentException when the URI or the TLS options cannot be used (e.g. a missing CA file)
     * @throws ServerErrorException when the server refuses the handshake (wrong password...)
     */
    public static <K, V> SpinelClient<K, V> create(String uri, Codec<K, V> codec, ClientOptions options) {
        RedisUri parsed = RedisUri.parse(uri);
        ClientTls tls = parsed.tls() ? ClientTls.of(options.tls(), options.connectTimeout().toMillis()) : null;
        Transport transport = new Transport(options.ioThreads(), tls);
        try {
            Connection c = Connection.open(transport, parsed, options, null).join();
            return new SpinelClient<>(transport, c, parsed, options, codec);
        } catch (CompletionException e) {
            transport.shutdown();
            throw e.getCause() instanceof RuntimeException r ? r : e;
        } catch (RuntimeException e) {
            transport.shutdown();
            throw e;
        }
    }

    /** The commands, returning futures. */
    public AsyncCommands<K, V> async() {
        return commands;
    }

    /** The commands, blocking: a thin facade over {@link #async()}. */
    public SyncCommands<K, V> sync() {
        return commands.sync();
    }

    /** The RESP version negotiated on the shared connection: 3, or 2 after the fallback. */
    public int protocol() {
        return connection.protocol();
    }

    /** Borrows a connection of its own from the pool (for WATCH/MULTI/EXEC); close it to give it back. */
    public DedicatedConnection<K, V> dedicated() {
        return join(dedicatedAsync());
    }

    public CompletableFuture<DedicatedConnection<K, V>> dedicatedAsync() {
        return pool.borrow().thenApply(c -> new DedicatedCommands<>(c, pool, replies));
    }

    /**
     * Runs {@code body} as one MULTI/EXEC transaction on a pooled connection: commands issued through
     * the given {@link AsyncCommands} are queued, and their futures complete when EXEC answers. The
     * result is false when a watched key changed (the body cannot WATCH here: use {@link #dedicated()}).
     */
    public CompletableFuture<Boolean> transaction(Function<AsyncCommands<K, V>, ?> body) {
        return dedicatedAsync().thenCompose(d -> {
            CompletableFuture<Boolean> result;
            try {
                d.multi();
                body.apply(d.async());
                result = d.exec();
            } catch (RuntimeException e) {
                d.discard();
                result = CompletableFuture.failedFuture(e);
            }
            return result.whenComplete((v, e) -> d.close());
        });
    }

    /** Opens a subscriber connection (subscriptions are restored after reconnects). */
    public PubSub<K, V> pubSub() {
        PubSubImpl<K, V> ps = new PubSubImpl<>(replies, subscribers::remove);
        ps.attach(join(Connection.open(transport, uri, options, ps)));
        subscribers.add(ps);
        return ps;
    }

    /** Closes every connection (pending commands fail with {@link ConnectionException}) and the threads. */
    @Override
    public void close() {
        for (PubSub<K, V> ps : subscribers) {
            ps.close();
        }
        CompletableFuture.allOf(connection.close(), pool.close()).join();
        transport.shutdown();
    }

    private static <T> T join(CompletableFuture<T> f) {
        if (!f.isDone() && Transport.onLoopThread()) {
            throw new IllegalStateException("blocking call on the client's event loop (inside a callback): use the async variant");
        }
        try {
            return f.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }
}
