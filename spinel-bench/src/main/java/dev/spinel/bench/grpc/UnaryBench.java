package dev.spinel.bench.grpc;

import com.google.protobuf.ByteString;
import dev.spinel.grpc.v1.BatchOp;
import dev.spinel.grpc.v1.BatchRequest;
import dev.spinel.grpc.v1.GetRequest;
import dev.spinel.grpc.v1.PutRequest;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A lean gRPC load client for Spinel's {@code spinel.kv.v1.KV} and etcd's {@code etcdserverpb.KV}, the same
 * code for both: a fixed window of {@code inflight} calls on one channel (one HTTP/2 connection), each
 * completion starting the next call from the channel's event loop. Requests are encoded once, before the
 * run (Spinel's PutRequest/GetRequest and etcd's PutRequest/RangeRequest have the same wire form for the
 * fields used: key = 1, value = 2), and replies are not decoded, so the client spends its CPU on the
 * transport, not on messages:
 * <pre>
 * bench/grpc-bench.sh [--target spinel|etcd] [--call put|get|batch] [--host 127.0.0.1] --port P
 *     [--seconds 10] [--warmup 2] [--inflight 100] [--keys 10000] [--value-size 32] [--batch-size 100]
 *     [--serializable] [--server-pid PID] [--client grpc-java|raw]
 * </pre>
 * {@code --client raw} drives put and get with {@link RawUnaryBench} (raw HTTP/2 frames, a fraction of this
 * client's CPU per call) instead; batch always runs here.
 * put: Put (etcd: Put) of random keys among {@code keys}; get: Get (etcd: Range, linearizable unless
 * {@code --serializable}) of those keys, which a put run must have written first; batch (Spinel only): one
 * Batch stream, {@code inflight} messages of {@code batch-size} Puts in flight. Prints one line of
 * {@code name=value} pairs: calls (or ops) per second, latency percentiles (per call, or per Batch message),
 * the server's CPU seconds over the measured interval (utime + stime from /proc/PID/stat) and the client's own.
 *
 * <p>Thread-safety: a program; the window's callbacks run on the channel's event loop and touch only
 * atomics and a {@link Recorder}.
 */
public final class UnaryBench {
    private static final MethodDescriptor.Marshaller<byte[]> RAW = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    private String target = "spinel";
    private String call = "put";
    private String host = "127.0.0.1";
    private int port = 50051;
    private int seconds = 10;
    private int warmup = 2;
    private int inflight = 100;
    private int keys = 10_000;
    private int valueSize = 32;
    private int batchSize = 100;
    private boolean serializable;
    private long serverPid;
    private String client = "grpc-java";

    /** What {@link RawUnaryBench} needs of the options. */
    record Options(String target, String call, String host, int port, int seconds, int warmup, int inflight,
                   int valueSize, long serverPid) {
        boolean etcd() {
            return target.equals("etcd");
        }
    }

    private final Recorder latency = new Recorder(3_600_000_000L, 3);
    private final LongAdder calls = new LongAdder();
    private final LongAdder ops = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder shortReplies = new LongAdder();
    private final AtomicLong firstFailure = new AtomicLong();
    private volatile String failure;
    private volatile long endNanos;
    private CountDownLatch finished;

    public static void main(String[] args) throws Exception {
        new UnaryBench().run(args);
    }

    private void run(String[] args) throws Exception {
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--target" -> target = args[++i];
                case "--call" -> call = args[++i];
                case "--host" -> host = args[++i];
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--inflight" -> inflight = Integer.parseInt(args[++i]);
                case "--keys" -> keys = Integer.parseInt(args[++i]);
                case "--value-size" -> valueSize = Integer.parseInt(args[++i]);
                case "--batch-size" -> batchSize = Integer.parseInt(args[++i]);
                case "--serializable" -> serializable = true;
                case "--server-pid" -> serverPid = Long.parseLong(args[++i]);
                case "--client" -> client = args[++i];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        boolean etcd = switch (target) {
            case "spinel" -> false;
            case "etcd" -> true;
            default -> throw new IllegalArgumentException("--target spinel or etcd");
        };
        if (client.equals("raw") && !call.equals("batch")) {
            RawUnaryBench.run(new Options(target, call, host, port, seconds, warmup, inflight, valueSize, serverPid),
                    putRequests(), getRequests());
            return;
        } else if (!client.equals("grpc-java") && !client.equals("raw")) {
            throw new IllegalArgumentException("--client grpc-java or raw");
        }
        ManagedChannel ch = NettyChannelBuilder.forAddress(host, port).usePlaintext().directExecutor().build();
        try {
            Window w = switch (call) {
                case "put" -> new UnaryWindow(ch, method(etcd ? "etcdserverpb.KV/Put" : "spinel.kv.v1.KV/Put",
                        MethodDescriptor.MethodType.UNARY), putRequests());
                case "get" -> {
                    fill(ch, method(etcd ? "etcdserverpb.KV/Put" : "spinel.kv.v1.KV/Put", MethodDescriptor.MethodType.UNARY));
                    UnaryWindow gets = new UnaryWindow(ch, method(etcd ? "etcdserverpb.KV/Range" : "spinel.kv.v1.KV/Get",
                            MethodDescriptor.MethodType.UNARY), getRequests());
                    gets.readsValues = true;
                    yield gets;
                }
                case "batch" -> {
                    if (etcd) {
                        throw new IllegalArgumentException("etcd has no Batch stream");
                    }
                    yield new BatchWindow(ch, method("spinel.kv.v1.KV/Batch", MethodDescriptor.MethodType.BIDI_STREAMING));
                }
                default -> throw new IllegalArgumentException("--call put, get or batch");
            };
            measure(w);
        } finally {
            ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /** Writes every key once (the same window of calls), so that a get run finds them all. */
    private void fill(ManagedChannel ch, MethodDescriptor<byte[], byte[]> put) throws InterruptedException {
        endNanos = Long.MAX_VALUE;
        finished = new CountDownLatch(1);
        UnaryWindow w = new UnaryWindow(ch, put, putRequests());
        w.limit = keys;
        w.start();
        if (!finished.await(300, TimeUnit.SECONDS)) {
            throw new IllegalStateException("filling " + keys + " keys took over 300 s");
        }
        if (failed.sum() > 0) {
            throw new IllegalStateException("filling the keys failed: " + failure);
        }
        calls.reset();
        ops.reset();
    }

    private void measure(Window w) throws Exception {
        // Warm-up: the same load, not counted.
        endNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmup + seconds) + 1;
        finished = new CountDownLatch(1);
        w.start();
        Thread.sleep(TimeUnit.SECONDS.toMillis(warmup));
        latency.reset();
        long calls0 = calls.sum();
        long ops0 = ops.sum();
        long server0 = cpuTicks(serverPid);
        long client0 = cpuTicks(ProcessHandle.current().pid());
        long t0 = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        long t1 = System.nanoTime();
        long nCalls = calls.sum() - calls0;
        long nOps = ops.sum() - ops0;
        long server1 = cpuTicks(serverPid);
        long client1 = cpuTicks(ProcessHandle.current().pid());
        Histogram h = latency.getIntervalHistogram();
        endNanos = 0; // stop issuing; wait for the window to drain
        w.stop();
        finished.await(10, TimeUnit.SECONDS);
        double secs = (t1 - t0) / 1e9;
        double hz = clockTicksPerSecond();
        double serverCpu = serverPid == 0 ? Double.NaN : (server1 - server0) / hz;
        double clientCpu = (client1 - client0) / hz;
        StringBuilder line = new StringBuilder();
        line.append(String.format(Locale.ROOT,
                "target=%s call=%s inflight=%d seconds=%.2f calls=%d ops=%d ops_per_s=%.0f"
                        + " p50_ms=%.3f p99_ms=%.3f p999_ms=%.3f server_cpu_s=%.2f ops_per_server_cpu_s=%.0f"
                        + " client_cpu_s=%.2f failed=%d",
                target, call, inflight, secs, nCalls, nOps, nOps / secs,
                h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3,
                serverCpu, nOps / serverCpu, clientCpu, failed.sum()));
        if (shortReplies.sum() > 0) {
            line.append(" replies_without_value=").append(shortReplies.sum());
        }
        System.out.println(line);
        if (failure != null) {
            System.err.println("first failure: " + failure);
        }
    }

    /** utime + stime of a process in clock ticks, 0 for pid 0. */
    static long cpuTicks(long pid) throws IOException {
        if (pid == 0) {
            return 0;
        }
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        // Fields after the command name (which may hold spaces) start after the last ')'.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15 of stat(5)
    }

    static double clockTicksPerSecond() {
        String hz = System.getenv("CLK_TCK");
        return hz == null ? 100 : Double.parseDouble(hz);
    }

    private static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(type).setFullMethodName(name)
                .setRequestMarshaller(RAW).setResponseMarshaller(RAW).build();
    }

    private ByteString key(int i) {
        return ByteString.copyFrom(String.format("%016d", i), StandardCharsets.US_ASCII);
    }

    private ByteString value() {
        byte[] v = new byte[valueSize];
        java.util.Arrays.fill(v, (byte) 'v');
        return ByteString.copyFrom(v);
    }

    private byte[][] putRequests() {
        ByteString v = value();
        byte[][] r = new byte[keys][];
        for (int i = 0; i < keys; i++) {
            r[i] = PutRequest.newBuilder().setKey(key(i)).setValue(v).build().toByteArray();
        }
        return r;
    }

    private byte[][] getRequests() {
        byte[][] r = new byte[keys][];
        for (int i = 0; i < keys; i++) {
            byte[] get = GetRequest.newBuilder().setKey(key(i)).build().toByteArray();
            if (serializable) { // etcd's RangeRequest.serializable = 7 (varint 1)
                get = java.util.Arrays.copyOf(get, get.length + 2);
                get[get.length - 2] = 7 << 3;
                get[get.length - 1] = 1;
            }
            r[i] = get;
        }
        return r;
    }

    private void failed(Status s) {
        failed.increment();
        if (firstFailure.compareAndSet(0, 1)) {
            failure = s.toString();
        }
    }

    private interface Window {
        void start();

        void stop();
    }

    /** {@code inflight} unary calls, each completion starting the next. */
    private final class UnaryWindow implements Window {
        private final ManagedChannel ch;
        private final MethodDescriptor<byte[], byte[]> method;
        private final byte[][] requests;
        private final AtomicLong open = new AtomicLong();
        /** Whether replies carry the value (a get run): a shorter reply is counted as one without it. */
        boolean readsValues;
        /** Calls to issue in all (the fill issues each key once), or unlimited. */
        long limit = Long.MAX_VALUE;
        private long issued;

        UnaryWindow(ManagedChannel ch, MethodDescriptor<byte[], byte[]> method, byte[][] requests) {
            this.ch = ch;
            this.method = method;
            this.requests = requests;
        }

        @Override
        public void start() {
            int first = (int) Math.min(inflight, limit);
            open.set(first);
            issued = first;
            for (int i = 0; i < first; i++) {
                issue(i);
            }
        }

        @Override
        public void stop() {
        }

        private void issue(int seq) {
            ClientCall<byte[], byte[]> c = ch.newCall(method, CallOptions.DEFAULT);
            long t0 = System.nanoTime();
            c.start(new ClientCall.Listener<>() {
                @Override
                public void onMessage(byte[] reply) {
                    if (readsValues && reply.length < valueSize) {
                        shortReplies.increment();
                    }
                }

                @Override
                public void onClose(Status status, Metadata trailers) {
                    long now = System.nanoTime();
                    latency.recordValue((now - t0) / 1000);
                    if (status.isOk()) {
                        calls.increment();
                        ops.increment();
                    } else {
                        failed(status);
                    }
                    if (now < endNanos && issued < limit) {
                        issue((int) (issued++ % keys));
                    } else if (open.decrementAndGet() == 0) {
                        finished.countDown();
                    }
                }
            }, new Metadata());
            c.request(1);
            c.sendMessage(requests[limit == Long.MAX_VALUE ? Math.floorMod(seq * 7919, keys) : seq]);
            c.halfClose();
        }
    }

    /** One Batch stream: {@code inflight} messages of {@code batchSize} Puts in flight. */
    private final class BatchWindow implements Window {
        private final ClientCall<byte[], byte[]> c;
        private final byte[][] messages;
        private final long[] sentAt;
        private long sent;
        private long received;

        BatchWindow(ManagedChannel ch, MethodDescriptor<byte[], byte[]> method) {
            this.c = ch.newCall(method, CallOptions.DEFAULT);
            ByteString v = value();
            int n = Math.max(1, keys / batchSize);
            messages = new byte[n][];
            for (int m = 0; m < n; m++) {
                BatchRequest.Builder b = BatchRequest.newBuilder();
                for (int i = 0; i < batchSize; i++) {
                    b.addOps(BatchOp.newBuilder().setPut(PutRequest.newBuilder().setKey(key((m * batchSize + i) % keys)).setValue(v)));
                }
                messages[m] = b.build().toByteArray();
            }
            sentAt = new long[inflight];
        }

        @Override
        public void start() {
            c.start(new ClientCall.Listener<>() {
                @Override
                public void onMessage(byte[] reply) {
                    synchronized (BatchWindow.this) {
                        long now = System.nanoTime();
                        latency.recordValue((now - sentAt[(int) (received++ % inflight)]) / 1000);
                        calls.increment();
                        ops.add(batchSize);
                        c.request(1);
                        if (now < endNanos) {
                            send();
                        } else if (received == sent) {
                            c.halfClose();
                        }
                    }
                }

                @Override
                public void onClose(Status status, Metadata trailers) {
                    if (!status.isOk()) {
                        failed(status);
                    }
                    finished.countDown();
                }
            }, new Metadata());
            c.request(1);
            // The first window is sent from this thread, the rest from the event loop's callbacks: the
            // call's own serialisation (ClientCall is not thread-safe) is kept by sending under its lock.
            synchronized (this) {
                for (int i = 0; i < inflight; i++) {
                    send();
                }
            }
        }

        private synchronized void send() {
            sentAt[(int) (sent % inflight)] = System.nanoTime();
            c.sendMessage(messages[(int) (sent % messages.length)]);
            sent++;
        }

        @Override
        public void stop() {
        }
    }
}
