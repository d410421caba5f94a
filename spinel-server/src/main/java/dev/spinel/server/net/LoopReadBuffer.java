package dev.spinel.server.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.internal.PlatformDependent;

import java.nio.ByteBuffer;

/**
 * The one native buffer every socket read of an event loop's plain connections goes into
 * ({@link LoopReceiveSizes#reusing}). The handler copies each read into the connection's query buffer before it
 * returns to the loop ({@link ReadBatch#read}), so nothing holds a read past its {@code channelRead}: instead of
 * a buffer from the pooled allocator per read (a thread-cache look-up, a recycled wrapper, an atomic reference
 * count to set and another to release), the loop clears and reuses this one.
 *
 * <p>Its reference count is fixed at one: {@link #retain()} and {@link #release()} do nothing, so Netty's read
 * loop and the handler, which release every read they are handed, leave it usable; its memory is the JDK's
 * direct buffer, freed by the JDK's cleaner once the loop's thread is gone. Only a pipeline whose handlers copy
 * every read out synchronously may be given it: not one behind TLS, whose handler may keep a read as the start of
 * its cumulation.
 *
 * <p>Not thread-safe: one per event-loop thread, used by that thread only.
 */
final class LoopReadBuffer {
    private LoopReadBuffer() {
    }

    /** A buffer of {@code capacity} bytes whose release never frees it. */
    static ByteBuf create(int capacity) {
        ByteBuffer memory = ByteBuffer.allocateDirect(capacity);
        return PlatformDependent.hasUnsafe() ? new ByAddress(memory) : new ByNioBuffer(memory);
    }

    /** Read into by address (epoll's {@code recvAddress}): the usual case. */
    private static final class ByAddress extends UnpooledUnsafeDirectByteBuf {
        ByAddress(ByteBuffer memory) {
            super(UnpooledByteBufAllocator.DEFAULT, memory, memory.capacity());
        }

        @Override
        public ByteBuf retain() {
            return this;
        }

        @Override
        public ByteBuf retain(int increment) {
            return this;
        }

        @Override
        public boolean release() {
            return false;
        }

        @Override
        public boolean release(int decrement) {
            return false;
        }

        @Override
        public int refCnt() {
            return 1;
        }
    }

    /** Without {@code sun.misc.Unsafe}: read into through its NIO view. */
    private static final class ByNioBuffer extends UnpooledDirectByteBuf {
        ByNioBuffer(ByteBuffer memory) {
            super(UnpooledByteBufAllocator.DEFAULT, memory, memory.capacity());
        }

        @Override
        public ByteBuf retain() {
            return this;
        }

        @Override
        public ByteBuf retain(int increment) {
            return this;
        }

        @Override
        public boolean release() {
            return false;
        }

        @Override
        public boolean release(int decrement) {
            return false;
        }

        @Override
        public int refCnt() {
            return 1;
        }
    }
}
