package dev.spinel.server.net;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.RecvByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The receive-size handle is one per event loop on epoll and NIO (an idle connection no longer holds its own, issue
 * #15) and one per connection on io_uring, whose reads complete asynchronously; and reads stay whole when many
 * connections of one loop send large pipelines at once through the shared handle; plain connections' reads go into
 * the loop's one buffer.
 */
class LoopReceiveSizesTest {
    private static final int CONNECTIONS = 8;

    @Test
    void connectionsOfALoopShareOneHandleWhereReadsCompleteInline() throws Exception {
        for (IoTransport t : IoTransport.values()) {
            if (!t.available()) {
                continue;
            }
            Set<Object> handles = handlesOfConnections(t);
            if (t == IoTransport.IO_URING) {
                assertEquals(CONNECTIONS, handles.size(), "io_uring: a handle per connection");
            } else {
                assertEquals(1, handles.size(), t.word() + ": one handle for the loop's " + CONNECTIONS + " connections");
            }
        }
    }

    @Test
    void aThreadGetsItsOwnHandle() throws Exception {
        RecvByteBufAllocator shared = LoopReceiveSizes.forTransport(IoTransport.EPOLL, 4096, 16384, 65536);
        RecvByteBufAllocator.Handle mine = shared.newHandle();
        assertTrue(mine == shared.newHandle());
        RecvByteBufAllocator.Handle[] other = new RecvByteBufAllocator.Handle[1];
        Thread th = new Thread(() -> other[0] = shared.newHandle());
        th.start();
        th.join();
        assertTrue(other[0] != null && other[0] != mine, "another thread has a handle of its own");
        RecvByteBufAllocator perChannel = LoopReceiveSizes.forTransport(IoTransport.IO_URING, 4096, 16384, 65536);
        assertTrue(perChannel.newHandle() != perChannel.newHandle());
    }

    /**
     * Plain connections of a loop read into the loop's one buffer, never the channel's allocator, and a read is
     * offered the adaptive guess's bytes (16 KiB at first, shrinking after one-byte reads to the 4 KiB minimum), as
     * from a pooled buffer of that size.
     */
    @Test
    void plainReadsOfALoopGoIntoOneBufferWithoutTheAllocator() throws Exception {
        for (IoTransport t : new IoTransport[] {IoTransport.EPOLL, IoTransport.NIO}) {
            if (!t.available()) {
                continue;
            }
            AtomicInteger allocations = new AtomicInteger();
            ByteBufAllocator counting = new AbstractByteBufAllocator(true) {
                @Override
                protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
                    allocations.incrementAndGet();
                    return UnpooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
                }

                @Override
                protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
                    allocations.incrementAndGet();
                    return UnpooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
                }

                @Override
                public boolean isDirectBufferPooled() {
                    return false;
                }
            };
            Set<Object> buffers = Collections.newSetFromMap(new IdentityHashMap<>());
            List<Integer> offered = new ArrayList<>();
            recordReads(t, LoopReceiveSizes.reusing(t, 4096, 16384, 65536), counting, (buf, handle) -> {
                synchronized (buffers) {
                    buffers.add(buf);
                    offered.add(buf.capacity() - buf.readerIndex());
                }
            });
            assertEquals(1, buffers.size(), t.word() + ": one buffer for the loop's " + CONNECTIONS + " connections");
            assertEquals(0, allocations.get(), t.word() + ": reads took no buffer from the allocator");
            assertEquals(16384, offered.get(0), t.word() + ": the first read is offered the initial guess");
            assertTrue(offered.stream().allMatch(n -> n >= 4096 && n <= 16384), t.word() + ": " + offered);
        }
    }

    @Test
    void largePipelinesFromManyConnectionsOnOneLoopAllArrive() throws Exception {
        for (IoTransport t : new IoTransport[] {IoTransport.EPOLL, IoTransport.NIO}) {
            if (!t.available()) {
                continue;
            }
            ServerConfig config = ServerConfig.defaults().with("port", "0").with("io-transport", t.word())
                    .with("event-loop-threads", "1").with("grpc-port", "0");
            try (SpinelServer server = SpinelServer.start(config)) {
                ExecutorService pool = Executors.newFixedThreadPool(CONNECTIONS);
                try {
                    List<Future<String>> results = new ArrayList<>();
                    for (int c = 0; c < CONNECTIONS; c++) {
                        int id = c;
                        results.add(pool.submit(() -> pipeline(server.port(), id)));
                    }
                    for (Future<String> f : results) {
                        assertEquals("", f.get(20, TimeUnit.SECONDS), t.word());
                    }
                } finally {
                    pool.shutdownNow();
                }
            }
        }
    }

    /** Sends 300 SETs of 1-20 KB in one write (several MB), then checks every reply and the last value. */
    private static String pipeline(int port, int id) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            ByteArrayOutputStream req = new ByteArrayOutputStream();
            String last = "";
            for (int i = 0; i < 300; i++) {
                last = String.valueOf((char) ('a' + (i + id) % 26)).repeat(1024 + (i * 7919 + id * 131) % 19_000);
                req.writeBytes(("*3\r\n$3\r\nSET\r\n$4\r\nk" + String.format("%03d", id) + "\r\n$" + last.length() + "\r\n"
                        + last + "\r\n").getBytes(StandardCharsets.US_ASCII));
            }
            req.writeBytes(("*2\r\n$3\r\nGET\r\n$4\r\nk" + String.format("%03d", id) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(req.toByteArray());
            out.flush();
            byte[] expected = ("+OK\r\n".repeat(300) + "$" + last.length() + "\r\n" + last + "\r\n").getBytes(StandardCharsets.US_ASCII);
            byte[] got = s.getInputStream().readNBytes(expected.length);
            return Arrays.equals(expected, got) ? "" : "connection " + id + ": replies differ";
        }
    }

    /** The receive handles (the delegate behind epoll's per-channel wrapper) of connections on one loop. */
    private static Set<Object> handlesOfConnections(IoTransport t) throws Exception {
        Set<Object> handles = Collections.newSetFromMap(new IdentityHashMap<>());
        ConcurrentLinkedQueue<Object> seen = new ConcurrentLinkedQueue<>();
        recordReads(t, LoopReceiveSizes.forTransport(t, 4096, 16384, 65536), ByteBufAllocator.DEFAULT,
                (buf, handle) -> seen.add(handle));
        for (Object h : seen) {
            handles.add(unwrap(h));
        }
        return handles;
    }

    /**
     * Connects {@link #CONNECTIONS} clients to a one-loop server whose connections read with {@code sizes} and
     * {@code alloc}, each sending one byte, and hands each read (before its release) and the channel's receive
     * handle to {@code reads}.
     */
    private static void recordReads(IoTransport t, RecvByteBufAllocator sizes, ByteBufAllocator alloc,
                                    BiConsumer<ByteBuf, Object> reads) throws Exception {
        CountDownLatch read = new CountDownLatch(CONNECTIONS);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, t.ioHandlerFactory());
        try {
            @ChannelHandler.Sharable
            class Recorder extends ChannelInboundHandlerAdapter {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    reads.accept((ByteBuf) msg, ctx.channel().unsafe().recvBufAllocHandle());
                    ((ByteBuf) msg).release();
                    read.countDown();
                }
            }
            Channel listener = new ServerBootstrap().group(group).channel(t.serverChannel())
                    .childOption(ChannelOption.RCVBUF_ALLOCATOR, sizes)
                    .childOption(ChannelOption.ALLOCATOR, alloc)
                    .childHandler(new Recorder())
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            List<Socket> clients = new ArrayList<>();
            try {
                for (int i = 0; i < CONNECTIONS; i++) {
                    Socket s = new Socket("127.0.0.1", ((InetSocketAddress) listener.localAddress()).getPort());
                    clients.add(s);
                    s.getOutputStream().write('x');
                }
                assertTrue(read.await(10, TimeUnit.SECONDS), t.word());
            } finally {
                for (Socket s : clients) {
                    s.close();
                }
                listener.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /** epoll wraps the allocator's handle in a delegating one of its own per channel; the shared part is the one it wraps. */
    private static Object unwrap(Object handle) throws Exception {
        for (Class<?> c = handle.getClass(); c != null; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (RecvByteBufAllocator.Handle.class.isAssignableFrom(f.getType())) {
                    f.setAccessible(true);
                    return f.get(handle);
                }
            }
        }
        return handle;
    }
}
