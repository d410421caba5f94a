package dev.spinel.server.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.uring.IoUringIoEvent;
import io.netty.channel.uring.IoUringIoHandle;
import io.netty.channel.uring.IoUringIoOps;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.Future;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A read batch's replies sent straight from the loop on io_uring, as {@link DirectSend} does on epoll: one copy
 * into a native buffer of the loop and one {@code IORING_OP_SEND} queued on the loop's own ring, which the loop
 * submits with its next wait (one {@code io_uring_enter} for every connection the turn served). Netty's stream
 * channel would take each reply through a pooled buffer, the pipeline's write and flush, the outbound buffer and
 * its write-completion frames (~2.6 % + ~1 % of the server's samples unpipelined, docs/performance.md's eighth
 * pass); this skips them.
 *
 * <p>One send per connection in flight: its buffer stays untouched until the completion, replies made meanwhile
 * wait in the connection's reply buffer and leave at the completion ({@link ReplyFlusher#uringSent}). The send is
 * {@code MSG_DONTWAIT}: it completes at once with what the socket took (all of it, part, or {@code EAGAIN}); what
 * it did not take goes through Netty's write path, which waits for the socket to drain and applies the
 * back-pressure, so a send never waits on a slow reader and a connection closed meanwhile leaves nothing pending
 * for long. The ring holds its own reference to the socket until the send completes.
 *
 * <p>One instance per event loop, registered on the loop's ring as an {@link IoUringIoHandle} of its own (not a
 * channel): each send carries its slot in the completion's 16-bit data. Slots and their buffers are reused; a
 * buffer grows to the largest reply it carried, up to {@link #MAX_BYTES} (larger replies go through Netty).
 *
 * <p>Thread-safety: used on its loop's thread only (Netty calls {@link #handle} there too).
 */
final class UringSend implements IoUringIoHandle {
    /** Replies above this go through Netty. */
    static final int MAX_BYTES = 64 * 1024;
    /** {@code IORING_OP_SEND} (include/uapi/linux/io_uring.h); Netty's own constant is not public. */
    private static final byte IORING_OP_SEND = 26;
    private static final int MSG_DONTWAIT = 0x40;
    private static final int MSG_NOSIGNAL = 0x4000;
    /** The 16-bit data of a completion names the slot: at most this many sends in flight per loop. */
    private static final int MAX_SLOTS = Short.MAX_VALUE;
    /** Spare slots kept (with their buffers) beyond this are freed: bounds what a burst of connections leaves. */
    private static final int KEEP_SPARE = 256;
    /** The smallest buffer a slot gets. */
    private static final int MIN_BUFFER = 4096;

    private static final FastThreadLocal<UringSend> LOOP = new FastThreadLocal<>();

    /** One send: its buffer, its connection while in flight. */
    static final class Send {
        final UringSend sender;
        final short slot;
        ByteBuf buffer;
        ReplyFlusher owner;
        int length;

        Send(UringSend sender, short slot) {
            this.sender = sender;
            this.slot = slot;
        }

        /** Copies bytes {@code [from, length)} of this send into {@code b} (what the socket did not take). */
        void copyRest(int from, ByteBuf b) {
            b.writeBytes(buffer, from, length - from);
        }
    }

    private IoRegistration registration;
    private final List<Send> slots = new ArrayList<>();
    private Send[] spare = new Send[16];
    private int spareCount;
    private boolean closed;
    /** Sends queued on this loop so far (tests see that the path is taken: {@link #sendsOnThisLoop}). */
    private long sends;

    private UringSend() {
    }

    /**
     * The loop's sender, registered on its ring on first use; null where it cannot be (not an io_uring loop, or
     * the registration failed: replies then take Netty's path). On the loop only.
     */
    static UringSend forLoop(EventLoop loop) {
        UringSend u = LOOP.get();
        if (u == null) {
            u = new UringSend();
            if (loop instanceof IoEventLoop io && io.isCompatible(UringSend.class)) {
                Future<IoRegistration> f = io.register(u);
                if (f.isSuccess()) {
                    u.registration = f.getNow();
                }
            }
            LOOP.set(u);
        }
        return u.registration == null ? null : u;
    }

    /**
     * Queues {@code bytes[0, size)} as one send on {@code channel}'s socket for {@code owner}, unless output sent
     * earlier still waits in Netty's outbound buffer (it goes first, through Netty), the reply is too large or the
     * ring refuses; returns the send in flight, or null when nothing was queued.
     */
    Send send(ReplyFlusher owner, Channel channel, byte[] bytes, int size) {
        if (size > MAX_BYTES || closed || !registration.isValid() || !(channel instanceof IoUringSocketChannel ch) || !ch.isActive()) {
            return null;
        }
        ChannelOutboundBuffer queued = ch.unsafe().outboundBuffer();
        if (queued == null || !queued.isEmpty() || queued.totalPendingWriteBytes() != 0) {
            return null;
        }
        Send s = take();
        if (s == null) {
            return null;
        }
        ByteBuf b = s.buffer;
        if (b == null || b.capacity() < size) {
            if (b != null) {
                b.release();
            }
            b = Unpooled.directBuffer(Math.min(MAX_BYTES, Math.max(MIN_BUFFER, Integer.highestOneBit(size - 1) << 1)));
            s.buffer = b;
        }
        b.setBytes(0, bytes, 0, size);
        s.length = size;
        s.owner = owner;
        long id = registration.submit(new IoUringIoOps(IORING_OP_SEND, (byte) 0, (short) 0, ch.fd().intValue(), 0,
                b.memoryAddress(), size, MSG_DONTWAIT | MSG_NOSIGNAL, s.slot, (short) 0, (short) 0, 0, 0));
        if (id == 0) { // the registration went away (the loop is shutting down)
            s.owner = null;
            giveBack(s);
            return null;
        }
        sends++;
        return s;
    }

    /** How many sends this loop queued so far (0 where it has no sender). On a loop thread. */
    static long sendsOnThisLoop() {
        UringSend u = LOOP.get();
        return u == null ? 0 : u.sends;
    }

    private Send take() {
        if (spareCount > 0) {
            Send s = spare[--spareCount];
            spare[spareCount] = null;
            return s;
        }
        if (slots.size() >= MAX_SLOTS) {
            return null;
        }
        Send s = new Send(this, (short) slots.size());
        slots.add(s);
        return s;
    }

    private void giveBack(Send s) {
        if ((closed || spareCount >= KEEP_SPARE) && s.buffer != null) {
            s.buffer.release(); // the slot stays (its index is its identity); only its memory goes
            s.buffer = null;
        }
        if (spareCount == spare.length) {
            spare = Arrays.copyOf(spare, spareCount * 2);
        }
        spare[spareCount++] = s;
    }

    @Override
    public void handle(IoRegistration registration, IoEvent event) {
        IoUringIoEvent e = (IoUringIoEvent) event;
        if (e.opcode() != IORING_OP_SEND) {
            return;
        }
        Send s = slots.get(e.data() & 0xffff);
        ReplyFlusher owner = s.owner;
        s.owner = null;
        try {
            if (owner != null) {
                owner.uringSent(s, e.res());
            }
        } finally {
            giveBack(s);
        }
    }

    /** The loop is stopping: spare buffers are freed now, those of sends in flight at their completion. */
    @Override
    public void close() {
        closed = true;
        for (int i = 0; i < spareCount; i++) {
            if (spare[i].buffer != null) {
                spare[i].buffer.release();
                spare[i].buffer = null;
            }
        }
        if (registration != null) {
            registration.cancel(); // sends still in flight complete first (Netty keeps the registration until then)
        }
    }
}
