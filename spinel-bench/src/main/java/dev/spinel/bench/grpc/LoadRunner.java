package dev.spinel.bench.grpc;

import com.google.protobuf.ByteString;
import dev.spinel.grpc.GrpcFrontEnd;
import dev.spinel.grpc.v1.BatchOp;
import dev.spinel.grpc.v1.BatchRequest;
import dev.spinel.grpc.v1.BatchResponse;
import dev.spinel.grpc.v1.BatchResult;
import dev.spinel.grpc.v1.CreateRequest;
import dev.spinel.grpc.v1.DeleteRequest;
import dev.spinel.grpc.v1.GetRequest;
import dev.spinel.grpc.v1.GetResponse;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.grpc.v1.PutRequest;
import dev.spinel.grpc.v1.PutResponse;
import dev.spinel.grpc.v1.UpdateRequest;
import dev.spinel.grpc.v1.UpdateResponse;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Load runner for the gRPC service (async stub, bounded in-flight RPCs):
 * <pre>
 * bench/grpc-load.sh (dev.spinel.bench.grpc.LoadRunner) [--host 127.0.0.1] [--port 50051] [--embedded]
 *     [--mode mixed|batch|counter] [--seconds 10] [--inflight 100] [--keys 10000] [--value-size 32]
 *     [--batch-size 50] [--streams 4]
 * </pre>
 * mixed: Create/Get/Update/Delete on random keys, at most {@code inflight} RPCs in flight; prints RPCs/s
 * and a count per status code (ALREADY_EXISTS and NOT_FOUND are outcomes, not failures).
 * batch: the same mix through Batch streams ({@code streams} streams, {@code inflight} messages of
 * {@code batch-size} ops in flight in all); prints ops/s. counter: {@code inflight} clients increment one
 * key with Get + versioned Update; checks that the final value equals the number of successful updates.
 * {@code --embedded} starts a Spinel in this JVM (client and server then share the machine's cores).
 *
 * <p>Thread-safety: a program; callbacks run on the channel's threads and only touch atomics.
 */
public final class LoadRunner {
    private final Map<Status.Code, LongAdder> codes = new ConcurrentHashMap<>();
    private final LongAdder done = new LongAdder();
    private String mode = "mixed";
    private int seconds = 10;
    private int inflight = 100;
    private int keys = 10_000;
    private int valueSize = 32;
    private int batchSize = 50;
    private int streams = 4;
    private ByteString value;

    public static void main(String[] args) throws Exception {
        new LoadRunner().run(args);
    }

    private void run(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = 50051;
        boolean embedded = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--host" -> host = args[++i];
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--embedded" -> embedded = true;
                case "--mode" -> mode = args[++i];
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--inflight" -> inflight = Integer.parseInt(args[++i]);
                case "--keys" -> keys = Integer.parseInt(args[++i]);
                case "--value-size" -> valueSize = Integer.parseInt(args[++i]);
                case "--batch-size" -> batchSize = Integer.parseInt(args[++i]);
                case "--streams" -> streams = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        value = ByteString.copyFrom(new byte[valueSize]);
        SpinelServer spinel = null;
        GrpcFrontEnd.Running grpc = null;
        if (embedded) {
            spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("grpc-port", "0"));
            grpc = GrpcFrontEnd.start(spinel, new InetSocketAddress("127.0.0.1", 0));
            port = grpc.port();
        }
        ManagedChannel ch = NettyChannelBuilder.forAddress(host, port).usePlaintext().directExecutor().build();
        try {
            KVGrpc.KVStub stub = KVGrpc.newStub(ch);
            long start = System.nanoTime();
            switch (mode) {
                case "mixed" -> mixed(stub);
                case "batch" -> batch(stub);
                case "counter" -> counter(stub);
                default -> throw new IllegalArgumentException("unknown mode " + mode);
            }
            double secs = (System.nanoTime() - start) / 1e9;
            System.out.printf("mode=%s inflight=%d seconds=%.1f %s/s=%.0f%n", mode, inflight, secs,
                    mode.equals("batch") ? "ops" : "rpcs", done.sum() / secs);
            Map<String, Long> sorted = new TreeMap<>();
            codes.forEach((c, n) -> sorted.put(c.name(), n.sum()));
            System.out.println("status codes: " + sorted);
        } finally {
            ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            if (grpc != null) {
                grpc.close();
                spinel.close();
            }
        }
    }

    private void count(Status.Code code) {
        codes.computeIfAbsent(code, c -> new LongAdder()).increment();
        done.increment();
    }

    private <T> StreamObserver<T> counting(Semaphore permits) {
        return new StreamObserver<>() {
            @Override
            public void onNext(T t) {
            }

            @Override
            public void onError(Throwable t) {
                count(Status.fromThrowable(t).getCode());
                permits.release();
            }

            @Override
            public void onCompleted() {
                count(Status.Code.OK);
                permits.release();
            }
        };
    }

    private BatchOp randomOp() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        ByteString key = ByteString.copyFromUtf8("load:" + r.nextInt(keys));
        return switch (r.nextInt(4)) {
            case 0 -> BatchOp.newBuilder().setCreate(CreateRequest.newBuilder().setKey(key).setValue(value)).build();
            case 1 -> BatchOp.newBuilder().setGet(GetRequest.newBuilder().setKey(key)).build();
            case 2 -> BatchOp.newBuilder().setUpdate(UpdateRequest.newBuilder().setKey(key).setValue(value)).build();
            default -> BatchOp.newBuilder().setDelete(DeleteRequest.newBuilder().setKey(key)).build();
        };
    }

    private void mixed(KVGrpc.KVStub stub) throws InterruptedException {
        Semaphore permits = new Semaphore(inflight);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < end) {
            permits.acquire();
            BatchOp op = randomOp();
            switch (op.getOpCase()) {
                case CREATE -> stub.create(op.getCreate(), counting(permits));
                case GET -> stub.get(op.getGet(), counting(permits));
                case UPDATE -> stub.update(op.getUpdate(), counting(permits));
                default -> stub.delete(op.getDelete(), counting(permits));
            }
        }
        permits.acquire(inflight); // wait for the last replies
    }

    private void batch(KVGrpc.KVStub stub) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        int perStream = Math.max(1, inflight / streams);
        Thread[] senders = new Thread[streams];
        for (int s = 0; s < streams; s++) {
            senders[s] = Thread.ofPlatform().start(() -> {
                Semaphore permits = new Semaphore(perStream);
                CountDownLatch closed = new CountDownLatch(1);
                StreamObserver<BatchRequest> in = stub.batch(new StreamObserver<>() {
                    @Override
                    public void onNext(BatchResponse r) {
                        for (BatchResult x : r.getResultsList()) {
                            count(Status.fromCodeValue(x.getCode()).getCode());
                        }
                        permits.release();
                    }

                    @Override
                    public void onError(Throwable t) {
                        System.err.println("batch stream failed: " + t);
                        closed.countDown();
                    }

                    @Override
                    public void onCompleted() {
                        closed.countDown();
                    }
                });
                try {
                    while (System.nanoTime() < end) {
                        permits.acquire();
                        BatchRequest.Builder b = BatchRequest.newBuilder();
                        for (int i = 0; i < batchSize; i++) {
                            b.addOps(randomOp());
                        }
                        in.onNext(b.build());
                    }
                    permits.acquire(perStream);
                    in.onCompleted();
                    closed.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        for (Thread t : senders) {
            t.join();
        }
    }

    /** Versioned increments of one key by {@code inflight} concurrent clients; no update may be lost. */
    private void counter(KVGrpc.KVStub stub) throws InterruptedException {
        ByteString key = ByteString.copyFromUtf8("load:counter");
        CountDownLatch ready = new CountDownLatch(1);
        stub.put(PutRequest.newBuilder().setKey(key).setValue(ByteString.copyFromUtf8("0")).build(), new StreamObserver<>() {
            public void onNext(PutResponse r) {
            }

            public void onError(Throwable t) {
                throw new IllegalStateException(t);
            }

            public void onCompleted() {
                ready.countDown();
            }
        });
        ready.await();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        AtomicLong successes = new AtomicLong();
        CountDownLatch finished = new CountDownLatch(inflight);
        for (int c = 0; c < inflight; c++) {
            new Incrementer(stub, key, end, successes, finished).next();
        }
        finished.await();
        CountDownLatch read = new CountDownLatch(1);
        long[] fin = new long[1];
        stub.get(GetRequest.newBuilder().setKey(key).build(), new StreamObserver<>() {
            public void onNext(GetResponse r) {
                fin[0] = Long.parseLong(r.getKv().getValue().toStringUtf8());
            }

            public void onError(Throwable t) {
                read.countDown();
            }

            public void onCompleted() {
                read.countDown();
            }
        });
        read.await();
        System.out.printf("counter: final value=%d successful increments=%d conflicts=%d -> %s%n", fin[0], successes.get(),
                codes.getOrDefault(Status.Code.FAILED_PRECONDITION, new LongAdder()).sum(),
                fin[0] == successes.get() ? "no update lost" : "LOST UPDATES");
    }

    /** One client's loop: Get, then Update with the version read; a conflict retries. */
    private final class Incrementer {
        final KVGrpc.KVStub stub;
        final ByteString key;
        final long end;
        final AtomicLong successes;
        final CountDownLatch finished;

        Incrementer(KVGrpc.KVStub stub, ByteString key, long end, AtomicLong successes, CountDownLatch finished) {
            this.stub = stub;
            this.key = key;
            this.end = end;
            this.successes = successes;
            this.finished = finished;
        }

        void next() {
            if (System.nanoTime() >= end) {
                finished.countDown();
                return;
            }
            stub.get(GetRequest.newBuilder().setKey(key).build(), new StreamObserver<>() {
                GetResponse got;

                public void onNext(GetResponse r) {
                    got = r;
                }

                public void onError(Throwable t) {
                    count(Status.fromThrowable(t).getCode());
                    next();
                }

                public void onCompleted() {
                    count(Status.Code.OK);
                    long n = Long.parseLong(got.getKv().getValue().toStringUtf8()) + 1;
                    stub.update(UpdateRequest.newBuilder().setKey(key).setValue(ByteString.copyFromUtf8(Long.toString(n)))
                            .setExpectedVersion(got.getKv().getVersion()).build(), new StreamObserver<>() {
                        public void onNext(UpdateResponse r) {
                        }

                        public void onError(Throwable t) {
                            count(Status.fromThrowable(t).getCode());
                            next();
                        }

                        public void onCompleted() {
                            count(Status.Code.OK);
                            successes.incrementAndGet();
                            next();
                        }
                    });
                }
            });
        }
    }
}
