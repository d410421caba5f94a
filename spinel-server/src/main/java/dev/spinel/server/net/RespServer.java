package dev.spinel.server.net;

import dev.spinel.server.engine.Engine;
import dev.spinel.server.log.Log;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The RESP TCP front end: Netty on the transport the {@code io-transport} directive selects
 * ({@link IoTransport}: native epoll by default, native io_uring, or NIO where neither is available),
 * one event loop per core by default, every connection served inline on its loop. Plain and TLS
 * listeners ({@code port}, {@code tls-port}) feed the same engine; a TLS connection has Netty's
 * {@link io.netty.handler.ssl.SslHandler} (JDK provider) in front of the same RESP handler.
 *
 * <p>Thread-safety: started and closed by one thread; the loops run the connections.
 */
public final class RespServer implements AutoCloseable {
    private final Engine engine;
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final LoopThreadFactory loopThreads;
    private final IoTransport transport;
    /** Listeners by kind: index 0 plain RESP, 1 RESP over TLS. */
    private final List<List<Channel>> listeners = List.of(new ArrayList<>(), new ArrayList<>());
    /** The TLS context new TLS connections get (CONFIG SET tls-* replaces it); null until TLS is configured. */
    private volatile ServerTls tls;
    /** Listeners bound while held accept nothing until {@link #release} (see {@link #hold}). */
    private volatile boolean held;

    /**
     * Sizes of the buffer each socket read goes into (held only until its bytes are copied into the query
     * buffer). Netty's default shrinks to 64 bytes after a few small requests (GETs), and then a 300-byte SET
     * took two or three {@code recv} calls: 1.09 reads per request under memtier's SET:GET 1:10, Redis 1.00.
     * At least 4 KiB, so a request of that size comes in one read whatever came before it. One size handle per
     * event loop, not per connection, where the transport allows it ({@link LoopReceiveSizes}). Plain connections
     * read into the loop's one buffer ({@code plainReceive}, {@link LoopReadBuffer}); TLS ones into a pooled buffer
     * per read, which Netty's TLS handler may keep.
     */
    private final RecvByteBufAllocator receiveSizes;
    private final RecvByteBufAllocator plainReceive;

    public RespServer(Engine engine) {
        this.engine = engine;
        int threads = (int) engine.config().eventLoopThreads.value();
        if (threads == 0) {
            threads = Runtime.getRuntime().availableProcessors();
        }
        transport = IoTransport.select(engine.config().ioTransport.value(), Log::warning);
        receiveSizes = LoopReceiveSizes.forTransport(transport, 4096, 16384, 65536);
        plainReceive = LoopReceiveSizes.reusing(transport, 4096, 16384, 65536);
        var factory = transport.ioHandlerFactory(engine.config().ioUringSingleIssuer.value());
        bossGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("spinel-accept", true), factory);
        loopThreads = new LoopThreadFactory("spinel-loop");
        workerGroup = new MultiThreadIoEventLoopGroup(threads, loopThreads, factory);
    }

    /** The event loops' threads started so far (Netty starts a loop's thread with its first task). */
    public List<Thread> loopThreads() {
        return loopThreads.threads();
    }

    public EventLoopGroup workerGroup() {
        return workerGroup;
    }

    /** The transport the loops run on (the directive's choice, or its fallback). */
    public IoTransport transport() {
        return transport;
    }

    /** Sets the TLS context for connections accepted from now on (those already open keep theirs). */
    public void tls(ServerTls tls) {
        this.tls = tls;
    }

    public ServerTls tls() {
        return tls;
    }

    /**
     * Listeners bound from now on accept no connection until {@link #release}: clients that connect wait in the
     * kernel's backlog, as Redis's clients wait while its one thread finishes starting (a cluster node's topology
     * starts after the port is bound, since a node announces the port it got).
     */
    public void hold() {
        held = true;
    }

    /** Every listener accepts connections (those waiting in the backlog first). */
    public synchronized void release() {
        held = false;
        for (List<Channel> kind : listeners) {
            for (Channel ch : kind) {
                ch.config().setAutoRead(true);
            }
        }
    }

    /**
     * Binds every address of the {@code bind} setting on {@code port} (0: an ephemeral port; negative: no
     * listener), plain or TLS. Returns the port bound, or -1 for none.
     */
    public synchronized int bind(List<String> addresses, int port, boolean tls) throws InterruptedException {
        if (port < 0) {
            return -1;
        }
        ServerBootstrap b = new ServerBootstrap()
                .group(bossGroup, workerGroup)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, (int) engine.config().tcpBacklog.value())
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.AUTO_READ, !held)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.AUTO_READ, tls) // plain: the handler re-arms each read (ReplyFlusher.armRead)
                // io_uring closes at a client's end before the read-complete of the requests that came with it:
                // half-closure lets the handler answer them first (RespConnectionHandler.userEventTriggered)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, !tls && transport == IoTransport.IO_URING)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, tls ? receiveSizes : plainReceive)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(HELD_OUTPUT_RESUME, HELD_OUTPUT_PAUSE))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        long keepalive = engine.config().tcpKeepalive.value();
                        if (keepalive > 0) {
                            transport.keepAlive(ch, (int) keepalive);
                        }
                        if (tls) {
                            ch.pipeline().addLast(RespServer.this.tls.newHandler());
                        }
                        ch.pipeline().addLast(new RespConnectionHandler(engine, tls));
                    }
                });
        int bound = port;
        List<Channel> kind = listeners.get(tls ? 1 : 0);
        for (String address : addresses) {
            boolean optional = address.startsWith("-");
            String host = optional ? address.substring(1) : address;
            host = switch (host) {
                case "*" -> "0.0.0.0";
                case "::*" -> "::";
                default -> host;
            };
            try {
                Channel ch = b.bind(new InetSocketAddress(host, bound)).sync().channel();
                kind.add(ch);
                bound = ((InetSocketAddress) ch.localAddress()).getPort();
            } catch (Exception e) {
                if (!optional) {
                    throw new IllegalStateException("Could not create server TCP listening socket " + host + ":" + bound
                            + ": " + e.getMessage(), e);
                }
            }
        }
        return bound;
    }

    /**
     * Listens on new addresses/port (CONFIG SET port/bind/tls-port), as Redis's changeBindAddr: the old
     * listeners of that kind close first (the new set may reuse their address), and if the new ones cannot
     * all be bound the old addresses are bound again and the error is rethrown. A negative port: none.
     */
    public synchronized int rebind(List<String> addresses, int port, List<String> oldAddresses, int oldPort, boolean tls)
            throws InterruptedException {
        closeListeners(tls);
        try {
            return bind(addresses, port, tls);
        } catch (RuntimeException | InterruptedException e) {
            closeListeners(tls);
            bind(oldAddresses, oldPort, tls);
            throw e;
        }
    }

    /**
     * Closes the listening sockets (plain and TLS): a client that connects afterwards is refused. SHUTDOWN calls it
     * before its own connection closes, as Redis's exit does: a client that sees that close and reconnects at once
     * must be refused, not accepted by a server about to stop (Redis's "SHUTDOWN NOSAVE can kill a timedout script").
     */
    public void stopAccepting() {
        closeListeners(false);
        closeListeners(true);
    }

    /** Synchronized as bind: SHUTDOWN during the start-up load closes the server while the start closes it too. */
    private synchronized void closeListeners(boolean tls) {
        List<Channel> kind = listeners.get(tls ? 1 : 0);
        for (Channel ch : kind) {
            ch.close().syncUninterruptibly();
        }
        kind.clear();
    }

    /** How long {@link #close} waits for the event loops to finish the command they run. */
    private static final int LOOP_STOP_WAIT_SECONDS = 3;
    /**
     * Replies a client has not read that the server holds before it stops reading that client's requests
     * (back-pressure; Redis has no such bound and keeps reading). A client that pipelines a burst of requests and
     * reads the replies only after writing them all (Redis's own suite sends 1M SETRANGEs, 9 MB of replies, so)
     * deadlocks against any bound below its replies: both sides wait to write. 16 MB holds such bursts, while a
     * client that never reads still costs a bounded amount.
     */
    private static final int HELD_OUTPUT_PAUSE = 16 * 1024 * 1024;
    /** Reading resumes once the held replies are below this. */
    private static final int HELD_OUTPUT_RESUME = 4 * 1024 * 1024;

    @Override
    public void close() {
        stopAccepting();
        bossGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        // Bounded: a loop stuck in a command (a KEYS that does not end) is left behind, the shutdown goes on.
        if (!workerGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(LOOP_STOP_WAIT_SECONDS,
                TimeUnit.SECONDS)) {
            Log.warning("An event loop is still busy in a command after " + LOOP_STOP_WAIT_SECONDS
                    + " seconds: shutting down without waiting for it");
        }
    }
}
