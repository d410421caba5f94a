package dev.spinel.server.net;

import io.netty.channel.ChannelOption;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringIoHandlerConfig;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.util.concurrent.ThreadAwareExecutor;

import java.util.Locale;
import java.util.function.Consumer;

/**
 * The network transports the RESP front end (and the gRPC service sharing its event loops) can run
 * on, chosen by the {@code io-transport} directive: Netty's native epoll, its native io_uring, or
 * the JDK's NIO, which works everywhere. {@code auto} takes the first available of
 * {@link #AUTO_ORDER}; a transport that is asked for but unavailable here falls back the same way.
 *
 * <p>Thread-safety: immutable constants; {@link #available()} asks Netty's own cached probes.
 */
public enum IoTransport {
    EPOLL("epoll"),
    IO_URING("io_uring"),
    NIO("nio");

    /**
     * What {@code auto} tries, best first. epoll before io_uring: on this project's 2-core machine neither was
     * consistently cheaper per request (io_uring from 10 % worse to 7 % better between runs, docs/benchmarks.md,
     * "Unpipelined throughput and the io_uring trial"), and epoll is the transport with the longer record.
     */
    private static final IoTransport[] AUTO_ORDER = {EPOLL, IO_URING, NIO};

    /** The system property that, when set, replaces {@code auto} (a transport's word). */
    static final String AUTO_PROPERTY = "spinel.io-transport";

    private final String word;

    IoTransport(String word) {
        this.word = word;
    }

    /** The directive's word for this transport; also INFO's multiplexing_api. */
    public String word() {
        return word;
    }

    public boolean available() {
        return switch (this) {
            case EPOLL -> Epoll.isAvailable();
            case IO_URING -> IoUring.isAvailable();
            case NIO -> true;
        };
    }

    /** Why this transport cannot run here (null when it can). */
    public Throwable unavailabilityCause() {
        return switch (this) {
            case EPOLL -> Epoll.unavailabilityCause();
            case IO_URING -> IoUring.unavailabilityCause();
            case NIO -> null;
        };
    }

    /**
     * The factory of this transport's I/O handlers, for loops that stay on their thread: Netty 4.2's native
     * factories let a loop be suspended and moved to another thread (for auto-scaling groups, which Spinel does
     * not use; its loops are {@link dev.spinel.server.engine.CommandChain.Owner} threads), and a loop allowed to
     * move measures its active I/O time with three clock reads per turn: ~0.1 of Spinel's ~2.6 clock reads per
     * unpipelined request (docs/benchmarks.md, "Per-request costs").
     */
    public IoHandlerFactory ioHandlerFactory() {
        return ioHandlerFactory(true);
    }

    /**
     * As {@link #ioHandlerFactory()}; {@code singleIssuer} (io_uring only, the {@code io-uring-single-issuer}
     * directive): each ring is set up for its loop's thread alone, with the kernel's completion work run when the
     * loop waits rather than by interrupting it ({@code IORING_SETUP_SINGLE_ISSUER | DEFER_TASKRUN}), which the
     * fixed loop threads allow: ~15 % less server CPU per unpipelined request with one loop
     * (docs/performance.md's ninth pass).
     */
    public IoHandlerFactory ioHandlerFactory(boolean singleIssuer) {
        return fixedThread(switch (this) {
            case EPOLL -> EpollIoHandler.newFactory();
            case IO_URING -> IoUringIoHandler.newFactory(new IoUringIoHandlerConfig().setSingleIssuer(singleIssuer));
            case NIO -> NioIoHandler.newFactory();
        });
    }

    private static IoHandlerFactory fixedThread(IoHandlerFactory netty) {
        return new IoHandlerFactory() {
            @Override
            public IoHandler newHandler(ThreadAwareExecutor executor) {
                return netty.newHandler(executor);
            }

            @Override
            public boolean isChangingThreadSupported() {
                return false;
            }
        };
    }

    public Class<? extends ServerChannel> serverChannel() {
        return switch (this) {
            case EPOLL -> EpollServerSocketChannel.class;
            case IO_URING -> IoUringServerSocketChannel.class;
            case NIO -> NioServerSocketChannel.class;
        };
    }

    /**
     * Turns TCP keep-alive on with Redis's timing: probes after {@code seconds} idle, then every
     * third of it, three times. NIO gets only SO_KEEPALIVE (the kernel's default timing).
     */
    public void keepAlive(SocketChannel ch, int seconds) {
        ch.config().setKeepAlive(true);
        int interval = Math.max(1, seconds / 3);
        switch (this) {
            case EPOLL -> {
                ch.config().setOption(EpollChannelOption.TCP_KEEPIDLE, seconds);
                ch.config().setOption(EpollChannelOption.TCP_KEEPINTVL, interval);
                ch.config().setOption(EpollChannelOption.TCP_KEEPCNT, 3);
            }
            case IO_URING -> {
                ch.config().setOption(IoUringChannelOption.TCP_KEEPIDLE, seconds);
                ch.config().setOption(IoUringChannelOption.TCP_KEEPINTVL, interval);
                ch.config().setOption(IoUringChannelOption.TCP_KEEPCNT, 3);
            }
            case NIO -> {
            }
        }
    }

    /**
     * The transport for a directive value ({@code auto}, {@code epoll}, {@code io_uring}, {@code nio}):
     * the one asked for when it is available here, else the first available in {@link #AUTO_ORDER}.
     * {@code fallback} hears why an explicit choice was not honoured.
     */
    public static IoTransport select(String directive, Consumer<String> fallback) {
        String wanted = directive.toLowerCase(Locale.ROOT);
        if (wanted.equals("auto")) {
            // what auto means in this JVM: lets a whole test run use another transport (-Dspinel.io-transport=io_uring)
            wanted = System.getProperty(AUTO_PROPERTY, "auto").toLowerCase(Locale.ROOT);
        }
        for (IoTransport t : values()) {
            if (t.word.equals(wanted)) {
                if (t.available()) {
                    return t;
                }
                IoTransport chosen = firstAvailable();
                Throwable cause = t.unavailabilityCause();
                fallback.accept("io-transport " + t.word + " is not available here ("
                        + (cause == null ? "unknown reason" : cause.getMessage()) + "), using " + chosen.word);
                return chosen;
            }
        }
        return firstAvailable();
    }

    private static IoTransport firstAvailable() {
        for (IoTransport t : AUTO_ORDER) {
            if (t.available()) {
                return t;
            }
        }
        return NIO;
    }
}
