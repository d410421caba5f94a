package dev.spinel.server.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.unix.Socket;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.util.concurrent.FastThreadLocal;

import java.io.IOException;

/**
 * Sends a read batch's replies straight to an epoll socket when nothing sent earlier still waits in Netty's
 * outbound buffer (so the order stays): one copy into the loop's native buffer and one {@code send}, saving per
 * write the pooled buffer, the pipeline's write and flush and the outbound buffer's bookkeeping, ~6 % of the
 * server's time for unpipelined requests (docs/performance.md). What the socket does not take goes through
 * Netty's write path, which waits for the socket to drain.
 *
 * <p>Thread-safety: called on the channel's event loop only; the native buffer is one per loop thread.
 */
final class DirectSend {
    /** Replies above this go through Netty (the native buffer's size). */
    private static final int MAX_BYTES = 64 * 1024;
    /** Each event loop's native buffer; lives as long as its loop thread. */
    private static final FastThreadLocal<ByteBuf> BUFFER = new FastThreadLocal<>() {
        @Override
        protected ByteBuf initialValue() {
            return Unpooled.directBuffer(MAX_BYTES, MAX_BYTES);
        }

        @Override
        protected void onRemoval(ByteBuf b) {
            b.release();
        }
    };

    private DirectSend() {
    }

    /**
     * How replies can leave {@code channel} without Netty's write path (plain TCP only): its epoll {@link Socket},
     * the loop's {@link UringSend} on io_uring (unless {@code uring} is off: {@code io-uring-direct-send no}), or
     * null where Netty's path is the only one. On the channel's loop.
     */
    static Object of(Channel channel, boolean tls, boolean uring) {
        if (tls) {
            return null;
        }
        if (channel instanceof EpollSocketChannel ch && ch.fd() instanceof Socket fd) {
            return fd;
        }
        return uring && channel instanceof IoUringSocketChannel ? UringSend.forLoop(channel.eventLoop()) : null;
    }

    /**
     * Sends {@code bytes[0, size)} on {@code socket} (null: nothing sent) unless output of {@code channel} still
     * waits; returns how many bytes the socket took, or -1 when the connection failed.
     */
    static int send(Socket socket, Channel channel, byte[] bytes, int size) {
        if (socket == null || size > MAX_BYTES) {
            return 0;
        }
        ChannelOutboundBuffer queued = channel.unsafe().outboundBuffer();
        if (queued == null || !queued.isEmpty() || queued.totalPendingWriteBytes() != 0) {
            return 0; // closed, or earlier output still queued: it goes first, through Netty
        }
        ByteBuf b = BUFFER.get();
        b.setBytes(0, bytes, 0, size);
        try {
            return socket.sendAddress(b.memoryAddress(), 0, size);
        } catch (IOException e) {
            return -1;
        }
    }
}
