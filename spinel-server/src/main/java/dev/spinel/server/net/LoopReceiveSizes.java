package dev.spinel.server.net;

import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.MaxMessagesRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * Sizes of the buffers socket reads go into, with one adaptive handle per event-loop thread instead of one per
 * connection. Netty asks the allocator for a handle once per channel, on the channel's first read, and keeps it
 * for the channel's life: with {@link AdaptiveRecvByteBufAllocator} that is 128 bytes of heap per connection
 * (the handle, its size calculator and a supplier), held by every idle client (issue #15: memory per idle
 * connection). This allocator gives every channel of a loop the loop's one handle.
 *
 * <p>Why sharing is correct: on a transport whose reads run to completion within one call on the loop (epoll,
 * NIO), a handle's counters live only from its {@code reset} at the start of a channel's read to its
 * {@code readComplete} at the end, all on the loop's thread, and no other channel's read can start in between
 * (the pipeline's handlers never read another socket synchronously). What persists between reads is only the
 * size guess, which becomes the loop's guess instead of the connection's (at least {@code minimum} bytes, so a
 * request of that size is read in one call whatever the other connections sent). io_uring is different: a read
 * is submitted and completes later, with other channels' reads in flight meanwhile, so it must keep a handle
 * per channel ({@link #forTransport}).
 *
 * <p>Thread-safety: {@link #newHandle()} may be called from any thread and returns that thread's own handle;
 * each handle is used by its thread only. {@code maxMessagesPerRead} is a volatile setting (Netty's).
 */
final class LoopReceiveSizes implements MaxMessagesRecvByteBufAllocator {
    private final AdaptiveRecvByteBufAllocator sizes;
    private final FastThreadLocal<Handle> handles = new FastThreadLocal<>() {
        @Override
        protected Handle initialValue() {
            return sizes.newHandle();
        }
    };

    LoopReceiveSizes(int minimum, int initial, int maximum) {
        this.sizes = new AdaptiveRecvByteBufAllocator(minimum, initial, maximum);
    }

    /**
     * The allocator for connections on {@code transport}: this class where reads complete inline on the loop,
     * Netty's per-channel adaptive handles for io_uring.
     */
    static RecvByteBufAllocator forTransport(IoTransport transport, int minimum, int initial, int maximum) {
        return transport == IoTransport.IO_URING
                ? new AdaptiveRecvByteBufAllocator(minimum, initial, maximum)
                : new LoopReceiveSizes(minimum, initial, maximum);
    }

    @Override
    public Handle newHandle() {
        return handles.get();
    }

    @Override
    public int maxMessagesPerRead() {
        return sizes.maxMessagesPerRead();
    }

    @Override
    public MaxMessagesRecvByteBufAllocator maxMessagesPerRead(int maxMessagesPerRead) {
        sizes.maxMessagesPerRead(maxMessagesPerRead);
        return this;
    }
}
