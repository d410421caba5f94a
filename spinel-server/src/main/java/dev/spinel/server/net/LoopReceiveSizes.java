package dev.spinel.server.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.MaxMessagesRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;
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
 * <p>The {@link #reusing} variant goes one step further for plain connections: every read of the loop goes into
 * the loop's one {@link LoopReadBuffer} of {@code maximum} bytes, its indexes reset before each read, instead of a buffer
 * from the pooled allocator per read (the same reasoning: a read's bytes are copied out before the handler
 * returns, and no other read of the loop starts before then).
 *
 * <p>Thread-safety: {@link #newHandle()} may be called from any thread and returns that thread's own handle;
 * each handle is used by its thread only. {@code maxMessagesPerRead} is a volatile setting (Netty's).
 */
final class LoopReceiveSizes implements MaxMessagesRecvByteBufAllocator {
    private final AdaptiveRecvByteBufAllocator sizes;
    private final FastThreadLocal<Handle> handles;

    private LoopReceiveSizes(int minimum, int initial, int maximum, boolean reuse) {
        this.sizes = new AdaptiveRecvByteBufAllocator(minimum, initial, maximum);
        this.handles = new FastThreadLocal<>() {
            @Override
            protected Handle initialValue() {
                Handle sized = sizes.newHandle();
                return reuse ? new Reusing((ExtendedHandle) sized, LoopReadBuffer.create(maximum)) : sized;
            }
        };
    }

    /**
     * The allocator for plain (not TLS) connections on {@code transport}: every read of a loop into the loop's
     * one buffer where reads complete inline on the loop, {@link #forTransport}'s allocator otherwise.
     */
    static RecvByteBufAllocator reusing(IoTransport transport, int minimum, int initial, int maximum) {
        return transport == IoTransport.IO_URING
                ? forTransport(transport, minimum, initial, maximum)
                : new LoopReceiveSizes(minimum, initial, maximum, true);
    }

    /**
     * The allocator for connections on {@code transport}: this class where reads complete inline on the loop,
     * Netty's per-channel adaptive handles for io_uring.
     */
    static RecvByteBufAllocator forTransport(IoTransport transport, int minimum, int initial, int maximum) {
        return transport == IoTransport.IO_URING
                ? new AdaptiveRecvByteBufAllocator(minimum, initial, maximum)
                : new LoopReceiveSizes(minimum, initial, maximum, false);
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

    /**
     * The loop's adaptive handle, but each read goes into the loop's {@link LoopReadBuffer}. The buffer offers a
     * read the guess's number of bytes, its last ones (both indexes at {@code capacity - guess}): a read takes
     * what it took from a pooled buffer of the guess's size, and {@code capacity - readerIndex} is that size
     * (CLIENT LIST's qbuf-free, {@link ReadBatch#read}).
     */
    private static final class Reusing implements ExtendedHandle {
        private final ExtendedHandle sized;
        private final ByteBuf buffer;

        Reusing(ExtendedHandle sized, ByteBuf buffer) {
            this.sized = sized;
            this.buffer = buffer;
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            int start = buffer.capacity() - sized.guess();
            return buffer.setIndex(start, start);
        }

        @Override
        public int guess() {
            return sized.guess();
        }

        @Override
        public void reset(ChannelConfig config) {
            sized.reset(config);
        }

        @Override
        public void incMessagesRead(int numMessages) {
            sized.incMessagesRead(numMessages);
        }

        @Override
        public void lastBytesRead(int bytes) {
            sized.lastBytesRead(bytes);
        }

        @Override
        public int lastBytesRead() {
            return sized.lastBytesRead();
        }

        @Override
        public void attemptedBytesRead(int bytes) {
            sized.attemptedBytesRead(bytes);
        }

        @Override
        public int attemptedBytesRead() {
            return sized.attemptedBytesRead();
        }

        @Override
        public boolean continueReading() {
            return sized.continueReading();
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return sized.continueReading(maybeMoreDataSupplier);
        }

        @Override
        public void readComplete() {
            sized.readComplete();
        }
    }
}
