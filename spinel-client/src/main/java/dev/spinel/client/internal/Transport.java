package dev.spinel.client.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The client's event-loop threads (epoll when available, else NIO) and the bootstrap template for its
 * TCP connections: TCP_NODELAY and SO_KEEPALIVE on; for a {@code rediss://} client every connection it
 * bootstraps (shared, pooled, pub/sub, and their reconnects) carries the client's {@link ClientTls}, which
 * puts TLS under it ({@link TlsConnector}). Thread-safe.
 */
public final class Transport {
    private final EventLoopGroup group;
    private final boolean epoll;
    private final ClientTls tls;

    /** Marks the client's event-loop threads, where waiting for a reply would deadlock. */
    private static final ThreadLocal<Boolean> LOOP_THREAD = new ThreadLocal<>();

    public Transport(int threads) {
        this(threads, null);
    }

    /** With {@code tls} not null, every connection is made over TLS. */
    public Transport(int threads, ClientTls tls) {
        this.tls = tls;
        epoll = Epoll.isAvailable();
        DefaultThreadFactory names = new DefaultThreadFactory("spinel-client", true);
        ThreadFactory marked = r -> names.newThread(() -> {
            LOOP_THREAD.set(Boolean.TRUE);
            r.run();
        });
        group = new MultiThreadIoEventLoopGroup(threads, marked, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    }

    /** True on a client event-loop thread (of any client). */
    public static boolean onLoopThread() {
        return LOOP_THREAD.get() != null;
    }

    /** A loop for a new connection; every channel of that connection (after reconnects too) uses it. */
    public EventLoop nextLoop() {
        return group.next();
    }

    Bootstrap bootstrap(EventLoop loop, int connectTimeoutMillis) {
        return new Bootstrap().group(loop)
                .attr(TlsConnector.TLS, tls)
                .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis);
    }

    public void shutdown() {
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
