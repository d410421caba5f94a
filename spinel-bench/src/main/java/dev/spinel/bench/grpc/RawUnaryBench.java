package dev.spinel.bench.grpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A lighter unary load client than {@link UnaryBench} (which runs grpc-java's whole client call machinery per
 * call): raw HTTP/2 frames on one blocking socket, one thread, {@code inflight} streams open at a time. Each
 * request's frames are prepared once per key (HEADERS with HPACK bytes that, after the first request, are all
 * indexed references to the server decoder's dynamic table, as grpc-java's and grpc-go's clients send them;
 * DATA with the gRPC length prefix); per call the client only patches the stream id, writes, and on the reply
 * decodes the response headers and trailers (HPACK must be decoded to keep the table in step) and checks
 * {@code grpc-status: 0} in the trailers: any other status, a RST_STREAM, or (for Get) a reply without the
 * value counts as failed. Same request bytes for Spinel's {@code spinel.kv.v1.KV} and etcd's
 * {@code etcdserverpb.KV} (Put, and Get / Range: key = 1, value = 2). Options and output line as
 * {@link UnaryBench}'s ({@code --call put|get} only; batch stays on {@link UnaryBench}).
 *
 * <p>Flow control: the client opens its own windows wide (1 MiB per stream, the connection's topped up by
 * WINDOW_UPDATE every 256 MiB received) and honours the server's connection window for its DATA; pings are
 * acknowledged, SETTINGS acknowledged, GOAWAY ends the run with an error.
 *
 * <p>Thread-safety: a program; one I/O thread owns the socket and all call state; the main thread only reads
 * the volatile counters and the {@link Recorder}.
 */
public final class RawUnaryBench {
    private static final byte DATA = 0, HEADERS = 1, RST_STREAM = 3, SETTINGS = 4, PING = 6, GOAWAY = 7,
            WINDOW_UPDATE = 8, CONTINUATION = 9;
    private static final int END_STREAM = 1, ACK = 1, END_HEADERS = 4, PADDED = 8, PRIORITY = 0x20;
    private static final int STREAM_WINDOW = 1 << 20, CONN_TOPUP = 1 << 28;
    private static final AsciiString GRPC_STATUS = AsciiString.of("grpc-status");
    private static final AsciiString OK = AsciiString.of("0");

    private final UnaryBench.Options o;
    private final Recorder latency = new Recorder(3_600_000_000L, 3);
    private volatile long callsDone, failedCalls, shortReplies;
    private volatile String failure;
    private volatile long endNanos = Long.MAX_VALUE;

    private SocketChannel sock;
    private final ByteBuffer in = ByteBuffer.allocateDirect(1 << 20);
    private final ByteBuffer out = ByteBuffer.allocateDirect(1 << 20);
    private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);
    private byte[] firstHeaders, headers;
    private byte[][] data;
    private final long[] startedAt = new long[1 << 16];
    private final int[] dataBytes = new int[1 << 16];
    /** The stream each slot serves while open, 0 after its end (a RST_STREAM after the trailers is ignored). */
    private final int[] openStream = new int[1 << 16];
    private int nextStream = 1, open, nextKey, deferred;
    private long issued, limit = Long.MAX_VALUE, sendWindow = 65_535, received;
    private boolean readsValues;
    private ByteBuf headerBlock;
    private int headerBlockStream, headerBlockFlags;

    RawUnaryBench(UnaryBench.Options o) {
        this.o = o;
    }

    /** Runs the bench described by {@code o} ({@code call} put or get) and prints the result line. */
    static void run(UnaryBench.Options o, byte[][] puts, byte[][] gets) throws Exception {
        String service = o.etcd() ? "/etcdserverpb.KV/" : "/spinel.kv.v1.KV/";
        RawUnaryBench b = new RawUnaryBench(o);
        b.connect();
        if (o.call().equals("get")) {
            b.fill(service + "Put", puts);
            b.prepare(service + (o.etcd() ? "Range" : "Get"), gets);
            b.readsValues = true;
        } else {
            b.prepare(service + "Put", puts);
        }
        b.measure();
    }

    private void connect() throws IOException {
        sock = SocketChannel.open(new InetSocketAddress(o.host(), o.port()));
        sock.setOption(StandardSocketOptions.TCP_NODELAY, true);
        out.put("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        frameHeader(12, SETTINGS, 0, 0);
        out.putShort((short) 2).putInt(0); // ENABLE_PUSH 0
        out.putShort((short) 4).putInt(STREAM_WINDOW); // INITIAL_WINDOW_SIZE
        frameHeader(4, WINDOW_UPDATE, 0, 0);
        out.putInt(CONN_TOPUP);
        flush();
    }

    /** The request frames: HEADERS blocks from Netty's HPACK encoder (the second request's: all indexed). */
    private void prepare(String path, byte[][] messages) throws Http2Exception {
        DefaultHttp2HeadersEncoder enc = new DefaultHttp2HeadersEncoder();
        Http2Headers h = new DefaultHttp2Headers().method("POST").scheme("http").path(path)
                .authority(o.host() + ":" + o.port()).add("content-type", "application/grpc").add("te", "trailers");
        firstHeaders = encode(enc, h);
        headers = encode(enc, h);
        if (!Arrays.equals(headers, encode(enc, h))) {
            throw new IllegalStateException("the HPACK encoding of the request headers is not stable");
        }
        data = new byte[messages.length][];
        for (int i = 0; i < messages.length; i++) {
            ByteBuffer d = ByteBuffer.allocate(9 + 5 + messages[i].length);
            int len = 5 + messages[i].length;
            d.put((byte) (len >>> 16)).put((byte) (len >>> 8)).put((byte) len).put(DATA).put((byte) END_STREAM).putInt(0);
            d.put((byte) 0).putInt(messages[i].length).put(messages[i]);
            data[i] = d.array();
        }
        sentFirst = false;
    }

    private boolean sentFirst;

    private static byte[] encode(DefaultHttp2HeadersEncoder enc, Http2Headers h) throws Http2Exception {
        ByteBuf b = Unpooled.buffer();
        enc.encodeHeaders(1, h, b);
        byte[] r = new byte[b.readableBytes()];
        b.readBytes(r);
        return r;
    }

    private void fill(String path, byte[][] puts) throws Exception {
        prepare(path, puts);
        limit = puts.length;
        loop(true);
        if (failedCalls > 0) {
            throw new IllegalStateException("filling the keys failed: " + failure);
        }
        limit = Long.MAX_VALUE;
        issued = 0;
        nextKey = 0;
        callsDone = 0;
    }

    private void measure() throws Exception {
        endNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(o.warmup() + o.seconds()) + 1;
        Thread io = new Thread(() -> {
            try {
                loop(false);
            } catch (Exception e) {
                failure = String.valueOf(e);
                failedCalls++;
            }
        }, "raw-h2-client");
        io.setDaemon(true);
        io.start();
        Thread.sleep(TimeUnit.SECONDS.toMillis(o.warmup()));
        latency.reset();
        long calls0 = callsDone;
        long server0 = UnaryBench.cpuTicks(o.serverPid());
        long client0 = UnaryBench.cpuTicks(ProcessHandle.current().pid());
        long t0 = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(o.seconds()));
        long t1 = System.nanoTime();
        long n = callsDone - calls0;
        long server1 = UnaryBench.cpuTicks(o.serverPid());
        long client1 = UnaryBench.cpuTicks(ProcessHandle.current().pid());
        Histogram h = latency.getIntervalHistogram();
        endNanos = 0;
        io.join(10_000);
        double secs = (t1 - t0) / 1e9;
        double hz = UnaryBench.clockTicksPerSecond();
        double serverCpu = o.serverPid() == 0 ? Double.NaN : (server1 - server0) / hz;
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                "target=%s call=%s client=raw inflight=%d seconds=%.2f calls=%d ops=%d ops_per_s=%.0f"
                        + " p50_ms=%.3f p99_ms=%.3f p999_ms=%.3f server_cpu_s=%.2f ops_per_server_cpu_s=%.0f"
                        + " client_cpu_s=%.2f failed=%d",
                o.target(), o.call(), o.inflight(), secs, n, n, n / secs,
                h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3,
                serverCpu, n / serverCpu, (client1 - client0) / hz, failedCalls));
        if (shortReplies > 0) {
            line.append(" replies_without_value=").append(shortReplies);
        }
        System.out.println(line);
        if (failure != null) {
            System.err.println("first failure: " + failure);
        }
    }

    /** Keeps {@code inflight} streams open until the end time (or the limit), then drains them. */
    private void loop(boolean untilLimit) throws IOException, Http2Exception {
        int first = (int) Math.min(o.inflight(), limit);
        for (int i = 0; i < first; i++) {
            issue();
        }
        flush();
        while (open > 0 || deferred > 0) {
            if (sock.read(in) < 0) {
                throw new IOException("the server closed the connection");
            }
            in.flip();
            parse();
            in.compact();
            if (received >= CONN_TOPUP / 2) {
                frameHeader(4, WINDOW_UPDATE, 0, 0);
                out.putInt((int) received);
                received = 0;
            }
            flush();
        }
    }

    private void issue() {
        byte[] d = data[Math.floorMod(nextKey * (limit == Long.MAX_VALUE ? 7919 : 1), data.length)];
        if (sendWindow < d.length - 9) { // wait for the server's WINDOW_UPDATE
            deferred++;
            return;
        }
        nextKey++;
        sendWindow -= d.length - 9;
        int stream = nextStream;
        nextStream += 2;
        byte[] hb = sentFirst ? headers : firstHeaders;
        sentFirst = true;
        frameHeader(hb.length, HEADERS, END_HEADERS, stream);
        out.put(hb);
        int at = out.position();
        out.put(d);
        out.putInt(at + 5, stream);
        startedAt[slot(stream)] = System.nanoTime();
        dataBytes[slot(stream)] = 0;
        openStream[slot(stream)] = stream;
        open++;
        issued++;
    }

    private static int slot(int stream) {
        return (stream >>> 1) & 0xFFFF;
    }

    private void parse() throws IOException, Http2Exception {
        while (in.remaining() >= 9) {
            int p = in.position();
            int len = ((in.get(p) & 0xFF) << 16) | ((in.get(p + 1) & 0xFF) << 8) | (in.get(p + 2) & 0xFF);
            if (in.remaining() < 9 + len) {
                if (9 + len > in.capacity()) {
                    throw new IOException("frame of " + len + " bytes");
                }
                return;
            }
            byte type = in.get(p + 3);
            int flags = in.get(p + 4) & 0xFF;
            int stream = in.getInt(p + 5) & 0x7FFFFFFF;
            int body = p + 9;
            switch (type) {
                case DATA -> {
                    received += len;
                    dataBytes[slot(stream)] += len;
                    if ((flags & END_STREAM) != 0) {
                        done(stream, "DATA with END_STREAM (no trailers)");
                    }
                }
                case HEADERS, CONTINUATION -> headerFragment(type, flags, stream, body, len);
                case RST_STREAM -> done(stream, "RST_STREAM, error code " + in.getInt(body));
                case SETTINGS -> {
                    if ((flags & ACK) == 0) {
                        frameHeader(0, SETTINGS, ACK, 0);
                    }
                }
                case PING -> {
                    if ((flags & ACK) == 0) {
                        frameHeader(8, PING, ACK, 0);
                        out.putLong(in.getLong(body));
                    }
                }
                case WINDOW_UPDATE -> {
                    if (stream == 0) {
                        sendWindow += in.getInt(body) & 0x7FFFFFFF;
                        for (int d = deferred; d > 0; d--) {
                            deferred--;
                            issue();
                        }
                    }
                }
                case GOAWAY -> throw new IOException("GOAWAY, error code " + in.getInt(body + 4));
                default -> { }
            }
            in.position(body + len);
        }
    }

    private void headerFragment(byte type, int flags, int stream, int body, int len) throws Http2Exception {
        int from = body, n = len;
        if (type == HEADERS) {
            if ((flags & PADDED) != 0) {
                int pad = in.get(from) & 0xFF;
                from++;
                n -= 1 + pad;
            }
            if ((flags & PRIORITY) != 0) {
                from += 5;
                n -= 5;
            }
            headerBlock = Unpooled.buffer(n);
            headerBlockStream = stream;
            headerBlockFlags = flags;
        }
        for (int i = 0; i < n; i++) {
            headerBlock.writeByte(in.get(from + i));
        }
        if ((flags & END_HEADERS) == 0) {
            return;
        }
        Http2Headers h = decoder.decodeHeaders(headerBlockStream, headerBlock);
        headerBlock = null;
        if ((headerBlockFlags & END_STREAM) != 0) {
            CharSequence status = h.get(GRPC_STATUS);
            done(headerBlockStream, OK.contentEquals(status == null ? "" : status) ? null : "grpc-status " + status
                    + (h.get("grpc-message") == null ? "" : " " + h.get("grpc-message")));
        }
    }

    /**
     * A stream ended: counts it (failed when {@code error} is not null) and opens the next. A server may reset
     * a stream with NO_ERROR after its trailers (RFC 9113 8.1; grpc-go does): that end is not counted again.
     */
    private void done(int stream, String error) {
        long now = System.nanoTime();
        int s = slot(stream);
        if (openStream[s] != stream) {
            return;
        }
        openStream[s] = 0;
        latency.recordValue((now - startedAt[s]) / 1000);
        if (error == null && readsValues && dataBytes[s] < 5 + o.valueSize()) {
            shortReplies++;
        }
        if (error == null) {
            callsDone++;
        } else {
            failedCalls++;
            if (failure == null) {
                failure = "stream " + stream + ": " + error;
            }
        }
        open--;
        if (now < endNanos && issued + deferred < limit) {
            issue();
        }
    }

    private void frameHeader(int len, byte type, int flags, int stream) {
        out.put((byte) (len >>> 16)).put((byte) (len >>> 8)).put((byte) len).put(type).put((byte) flags).putInt(stream);
    }

    private void flush() throws IOException {
        out.flip();
        while (out.hasRemaining()) {
            sock.write(out);
        }
        out.clear();
    }
}
