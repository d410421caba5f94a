package dev.spinel.grpc;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.log.Log;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The gRPC port, bound at the server's start, with gRPC loaded only when a client first connects (issue #15: an
 * empty server held 5-8 MB of gRPC's classes, Netty's HTTP/2 codec and protobuf whether or not anyone used it).
 * Spinel's own listener accepts every connection on {@code grpc-bind}:{@code grpc-port}; a handler in front of
 * the listener's bootstrap acceptor takes each accepted (not yet registered) channel. Until the service runs, the
 * first ones wait, the listener stops accepting (auto-read off: later clients wait in the kernel's backlog), and
 * the service starts on a thread of its own, off the event loops; then every waiting and later connection goes to
 * the service's in-process server channel ({@link GrpcService#startFed}), which registers it on Spinel's loops
 * with gRPC's handlers. No connection is lost or reset by the wait: a client's bytes stay in its socket until
 * gRPC reads them. A service that fails to start closes the connections that waited and is tried again on the
 * next one.
 *
 * <p>Thread-safety: {@code waiting} and {@code starting} belong to the listener's event loop; {@code fed} is set
 * there and {@code closed} by {@link #close} (once, from any thread), both under this object's monitor, so a
 * service that finishes starting after the close is closed rather than kept.
 */
final class GrpcOnFirstConnection implements AutoCloseable {
    private final SpinelServer spinel;
    private final int port;
    private Channel listener;
    private final List<Channel> waiting = new ArrayList<>();
    private boolean starting;
    private volatile GrpcService.Fed fed;
    private volatile boolean closed;

    private GrpcOnFirstConnection(SpinelServer spinel, int port) {
        this.spinel = spinel;
        this.port = port;
    }

    /** Binds {@code address} on Spinel's loops; gRPC is loaded on the first connection. */
    static GrpcOnFirstConnection listen(SpinelServer spinel, InetSocketAddress address) throws InterruptedException {
        GrpcOnFirstConnection lazy = new GrpcOnFirstConnection(spinel, address.getPort());
        lazy.listener = new ServerBootstrap()
                .group(spinel.eventLoops(), spinel.eventLoops())
                .channel(spinel.transport().serverChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .handler(lazy.new Intake())
                .childHandler(new ChannelInboundHandlerAdapter()) // never reached: Intake takes every child
                .bind(address).sync().channel();
        Log.notice("gRPC service (spinel.kv.v1.KV) listening on " + address.getHostString() + ":" + lazy.port()
                + " (loaded on its first connection)");
        return lazy;
    }

    /** The port bound (the one asked for, or the ephemeral one given for 0). */
    int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** Whether gRPC has been started (for tests). */
    boolean started() {
        return fed != null;
    }

    /** On the listener's loop: each accepted connection, before the bootstrap would have registered it. */
    private final class Intake extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Channel child = (Channel) msg;
            GrpcService.Fed f = fed;
            if (f != null) {
                handOver(f, child);
                return;
            }
            waiting.add(child);
            if (!starting) {
                starting = true;
                ctx.channel().config().setAutoRead(false);
                Thread.ofPlatform().daemon().name("spinel-grpc-start").start(this::startService);
            }
        }

        private void startService() {
            GrpcService.Fed started = null;
            Exception failure = null;
            try {
                started = GrpcService.startFed(spinel, port());
                Log.notice("gRPC service (spinel.kv.v1.KV) started on its first connection");
            } catch (Exception | LinkageError e) {
                failure = e instanceof Exception ex ? ex : new IllegalStateException(e);
            }
            GrpcService.Fed result = started;
            Exception cause = failure;
            listener.eventLoop().execute(() -> served(result, cause));
        }

        /** Back on the listener's loop: hand the waiting connections over (or close them), accept again. */
        private void served(GrpcService.Fed started, Exception failure) {
            starting = false;
            synchronized (GrpcOnFirstConnection.this) {
                if (started != null && !closed) {
                    fed = started;
                } else if (started != null) {
                    started.running().close();
                    started = null;
                }
            }
            if (started == null) {
                if (failure != null) {
                    Log.warning("gRPC service failed to start: " + failure);
                }
                for (Channel c : waiting) {
                    c.unsafe().closeForcibly();
                }
            } else {
                for (Channel c : waiting) {
                    handOver(started, c);
                }
            }
            waiting.clear();
            if (!closed) {
                listener.config().setAutoRead(true);
            }
        }

    }

    /** Fires an accepted connection into the service's server channel, on that channel's loop. */
    private static void handOver(GrpcService.Fed f, Channel child) {
        f.acceptor().eventLoop().execute(() -> f.acceptor().pipeline().fireChannelRead(child));
    }

    @Override
    public void close() {
        GrpcService.Fed f;
        synchronized (this) {
            closed = true;
            f = fed;
        }
        listener.close().syncUninterruptibly();
        if (f != null) {
            f.running().close();
        }
    }

    @Override
    public String toString() {
        return "gRPC service on port " + port() + (fed == null ? " (not loaded yet)" : "");
    }
}
