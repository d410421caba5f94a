package dev.spinel.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import dev.spinel.grpc.v1.Compare;
import dev.spinel.grpc.v1.GetRequest;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.grpc.v1.PutRequest;
import dev.spinel.grpc.v1.PutResponse;
import dev.spinel.grpc.v1.RequestOp;
import dev.spinel.grpc.v1.TxnRequest;
import dev.spinel.grpc.v1.UpdateRequest;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.Codec;
import io.grpc.CompressorRegistry;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static dev.spinel.grpc.Ops.b;
import static dev.spinel.grpc.Ops.create;
import static dev.spinel.grpc.Ops.delete;
import static dev.spinel.grpc.Ops.get;
import static dev.spinel.grpc.Ops.put;
import static dev.spinel.grpc.Ops.update;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fast unary path ({@link FastUnaryListener}) against grpc-java's own path, differentially: the same calls,
 * through grpc-java's client, to a server with the fast path and to one without it, give the same status codes,
 * descriptions, replies (versions aside: each server has its own counter), response headers and trailers; and
 * the wire's edge cases (deadlines, metadata, compression, unknown methods, messages over the size limit and over
 * what the fast path gathers, cancellation, flow control under volume, shutdown) behave as grpc-java's path does.
 */
class FastUnaryTest {
    private static final MethodDescriptor.Marshaller<byte[]> RAW = RawBytes.MARSHALLER;

    /** A call's outcome as the client sees it, versions cleared, with the response headers and trailers. */
    private static String outcome(Channel channel, Function<KVGrpc.KVBlockingStub, Message> call) {
        Map<String, String> seen = new TreeMap<>();
        ClientInterceptor capture = new ClientInterceptor() {
            @Override
            public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> m, CallOptions o, Channel next) {
                return new SimpleForwardingClientCall<>(next.newCall(m, o)) {
                    @Override
                    public void start(Listener<R> listener, Metadata headers) {
                        super.start(new SimpleForwardingClientCallListener<>(listener) {
                            @Override
                            public void onHeaders(Metadata h) {
                                seen.put("headers", h.toString());
                                super.onHeaders(h);
                            }

                            @Override
                            public void onClose(Status status, Metadata trailers) {
                                seen.put("trailers", trailers.toString());
                                super.onClose(status, trailers);
                            }
                        }, headers);
                    }
                };
            }
        };
        KVGrpc.KVBlockingStub stub = KVGrpc.newBlockingStub(ClientInterceptors.intercept(channel, capture))
                .withDeadlineAfter(30, TimeUnit.SECONDS);
        String result;
        try {
            result = "OK " + scrub(call.apply(stub));
        } catch (StatusRuntimeException e) {
            // a version in a description is each server's own number
            result = e.getStatus().getCode() + " " + String.valueOf(e.getStatus().getDescription()).replaceAll("\\d{10,}", "V");
        }
        return result + " " + seen;
    }

    /** The message with every version and revision cleared (each server counts its own), expiry times set to 1. */
    private static Message scrub(Message m) {
        Message.Builder b = m.toBuilder();
        for (Map.Entry<FieldDescriptor, Object> f : m.getAllFields().entrySet()) {
            FieldDescriptor d = f.getKey();
            if (d.getName().contains("version") || d.getName().equals("revision")) {
                b.clearField(d);
            } else if (d.getName().equals("expire_at_ms")) {
                b.setField(d, 1L); // a time: that it is set is what both servers must agree on
            } else if (d.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
                if (d.isRepeated()) {
                    b.clearField(d);
                    for (Object o : (List<?>) f.getValue()) {
                        b.addRepeatedField(d, scrub((Message) o));
                    }
                } else {
                    b.setField(d, scrub((Message) f.getValue()));
                }
            }
        }
        return b.build();
    }

    /** The calls each server gets, in order: successes and each status the unary methods return. */
    private static List<Function<KVGrpc.KVBlockingStub, Message>> script() {
        List<Function<KVGrpc.KVBlockingStub, Message>> s = new ArrayList<>();
        s.add(kv -> kv.get(get("a")));                                   // NOT_FOUND
        s.add(kv -> kv.put(put("a", "1")));
        s.add(kv -> kv.put(put("a", "2", 60_000)));
        s.add(kv -> kv.get(get("a")));
        s.add(kv -> kv.create(create("a", "3")));                        // ALREADY_EXISTS
        s.add(kv -> kv.create(create("c", "3")));
        s.add(kv -> kv.update(update("c", "4")));
        s.add(kv -> kv.update(update("nope", "4")));                     // NOT_FOUND
        s.add(kv -> kv.update(UpdateRequest.newBuilder().setKey(b("c")).setValue(b("5")).setExpectedVersion(1).build()));
        s.add(kv -> kv.get(GetRequest.getDefaultInstance()));            // INVALID_ARGUMENT: empty key
        s.add(kv -> kv.put(put("t", "1", -5)));                          // INVALID_ARGUMENT: negative TTL
        s.add(kv -> kv.delete(delete("c")));
        s.add(kv -> kv.delete(delete("c")));                             // NOT_FOUND
        s.add(kv -> kv.get(get("list")));                                // FAILED_PRECONDITION: WRONGTYPE
        s.add(kv -> kv.txn(TxnRequest.newBuilder()
                .addCompares(Compare.newBuilder().setKey(b("a")).setTarget(Compare.Target.EXISTS)
                        .setResult(Compare.Result.EQUAL).setExists(true))
                .addSuccessOps(RequestOp.newBuilder().setPut(put("tx", "y")))
                .addFailureOps(RequestOp.newBuilder().setGet(get("a"))).build()));
        s.add(kv -> kv.txn(TxnRequest.newBuilder().addSuccessOps(RequestOp.getDefaultInstance()).build()));
        s.add(kv -> kv.get(get("tx")));
        s.add(kv -> kv.put(PutRequest.newBuilder().setKey(b("big")).setValue(ByteString.copyFrom(new byte[200_000])).build()));
        s.add(kv -> kv.get(get("big")));                                 // over what the fast path gathers: grpc-java's
        s.add(kv -> kv.put(PutRequest.newBuilder().setKey(b("mid")).setValue(ByteString.copyFrom(new byte[50_000])).build()));
        s.add(kv -> kv.get(get("mid")));                                 // several DATA frames, gathered
        s.add(kv -> kv.put(PutRequest.newBuilder().setKey(b("huge")).setValue(ByteString.copyFrom(new byte[2 << 20])).build()));
        return s;
    }

    @Test
    @Timeout(120)
    void everyUnaryOutcomeIsGrpcJavasOwn() throws Exception {
        try (GrpcTestServer fast = new GrpcTestServer(true, "grpc-max-message-size", "1mb");
             GrpcTestServer slow = new GrpcTestServer(false, "grpc-max-message-size", "1mb");
             Jedis jf = fast.jedis(); Jedis js = slow.jedis()) {
            jf.rpush("list", "x");
            js.rpush("list", "x");
            List<Function<KVGrpc.KVBlockingStub, Message>> script = script();
            for (int i = 0; i < script.size(); i++) {
                String expected = outcome(slow.channel, script.get(i));
                String actual = outcome(fast.channel, script.get(i));
                assertEquals(expected, actual, "call " + i);
            }
            long served = fast.grpc.fast.served.sum();
            assertTrue(served >= script.size() - 4, "the fast path served the calls it can: " + served);
            assertEquals(null, slow.grpc.fast, "the reference server has no fast path");

            // Authentication: no credentials, a wrong and a right password, by Bearer and by spinel-password
            jf.configSet("requirepass", "pw");
            js.configSet("requirepass", "pw");
            for (Metadata m : List.of(new Metadata(), md("authorization", "Bearer nope"), md("authorization", "Basic x"),
                    md("authorization", "Bearer pw"), md("spinel-password", "pw"), md("spinel-username", "default"))) {
                Function<KVGrpc.KVBlockingStub, Message> call =
                        kv -> kv.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(m)).get(get("a"));
                assertEquals(outcome(slow.channel, call), outcome(fast.channel, call), "metadata " + m);
            }
            jf.configSet("requirepass", "");
            js.configSet("requirepass", "");

            // Custom metadata, text and binary, passes untouched
            Metadata extra = md("x-trace", "abc");
            extra.put(Metadata.Key.of("x-blob-bin", Metadata.BINARY_BYTE_MARSHALLER), new byte[] {0, 1, 2, (byte) 0xff});
            Function<KVGrpc.KVBlockingStub, Message> withExtra =
                    kv -> kv.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(extra)).get(get("a"));
            assertEquals(outcome(slow.channel, withExtra), outcome(fast.channel, withExtra));

            // Compression: gzip is decompressed (grpc-java's path), an encoding the server lacks is UNIMPLEMENTED
            Function<KVGrpc.KVBlockingStub, Message> gzip = kv -> kv.withCompression("gzip").put(put("z", "1"));
            assertEquals(outcome(slow.channel, gzip), outcome(fast.channel, gzip));
            for (GrpcTestServer s : List.of(slow, fast)) {
                try (var odd = new OddEncodingChannel(s.grpc.port())) {
                    String o = outcome(odd.channel, kv -> kv.withCompression("x-odd").put(put("z", "2")));
                    assertTrue(o.startsWith("UNIMPLEMENTED"), o);
                }
            }

            // A malformed request and an unknown method
            MethodDescriptor<byte[], byte[]> rawPut = KVGrpc.getPutMethod().toBuilder(RAW, RAW).build();
            MethodDescriptor<byte[], byte[]> unknown = rawPut.toBuilder().setFullMethodName("spinel.kv.v1.KV/Nope").build();
            for (MethodDescriptor<byte[], byte[]> m : List.of(rawPut, unknown)) {
                List<String> both = new ArrayList<>();
                for (GrpcTestServer s : List.of(slow, fast)) {
                    try {
                        ClientCalls.blockingUnaryCall(s.channel, m, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
                                new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff});
                        both.add("OK");
                    } catch (StatusRuntimeException e) {
                        both.add(e.getStatus().getCode() + " " + e.getStatus().getDescription());
                    }
                }
                assertEquals(both.get(0), both.get(1), m.getFullMethodName());
                assertTrue(!both.get(0).startsWith("OK"), both.get(0));
            }
        }
    }

    private static Metadata md(String key, String value) {
        Metadata m = new Metadata();
        m.put(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER), value);
        return m;
    }

    /** A channel whose client may compress with "x-odd", an encoding no server knows. */
    private static final class OddEncodingChannel implements AutoCloseable {
        final ManagedChannel channel;

        OddEncodingChannel(int port) {
            CompressorRegistry registry = CompressorRegistry.newEmptyInstance();
            registry.register(new Codec() {
                @Override
                public String getMessageEncoding() {
                    return "x-odd";
                }

                @Override
                public OutputStream compress(OutputStream os) {
                    return os;
                }

                @Override
                public InputStream decompress(InputStream is) {
                    return is;
                }
            });
            channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().compressorRegistry(registry).build();
        }

        @Override
        public void close() {
            channel.shutdownNow();
        }
    }

    /**
     * Many calls in flight on one connection, with values that take several DATA frames and the connection's window
     * many times over; half of them cancelled at once (RST_STREAM while the call runs or its reply waits for the
     * fsync of the log): every call not cancelled succeeds, every value reads back, and the connection still serves.
     */
    @Test
    @Timeout(120)
    void volumeAndCancellationOnOneConnection() throws Exception {
        try (GrpcTestServer s = new GrpcTestServer(true, "appendonly", "yes", "appendfsync", "always")) {
            KVGrpc.KVStub async = s.async();
            int n = 2_000;
            byte[] value = new byte[40_000];
            CountDownLatch done = new CountDownLatch(n);
            AtomicInteger ok = new AtomicInteger();
            AtomicInteger cancelled = new AtomicInteger();
            List<String> failures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                value[0] = (byte) i;
                var ctx = io.grpc.Context.current().withCancellation();
                boolean cancel = i % 2 == 1;
                String key = "v" + i;
                ctx.run(() -> async.withDeadlineAfter(60, TimeUnit.SECONDS).put(
                        PutRequest.newBuilder().setKey(b(key)).setValue(ByteString.copyFrom(value)).build(),
                        new StreamObserver<PutResponse>() {
                            @Override
                            public void onNext(PutResponse r) {
                                ok.incrementAndGet();
                            }

                            @Override
                            public void onError(Throwable t) {
                                if (Status.fromThrowable(t).getCode() == Status.Code.CANCELLED) {
                                    cancelled.incrementAndGet();
                                } else {
                                    synchronized (failures) {
                                        failures.add(t.toString());
                                    }
                                }
                                done.countDown();
                            }

                            @Override
                            public void onCompleted() {
                                done.countDown();
                            }
                        }));
                if (cancel) {
                    ctx.cancel(null);
                }
            }
            assertTrue(done.await(100, TimeUnit.SECONDS), "every call ended");
            assertEquals(List.of(), failures);
            assertEquals(n, ok.get() + cancelled.get());
            assertTrue(ok.get() >= n / 2, "the calls not cancelled all succeeded: " + ok.get());
            KVGrpc.KVBlockingStub kv = s.blocking();
            kv.put(put("after", "1"));
            assertEquals("1", kv.get(get("after")).getKv().getValue().toStringUtf8());
            assertTrue(s.grpc.fast.served.sum() >= ok.get(), "served on the fast path");
        }
    }

    /** Calls in flight when the service shuts down finish (GOAWAY, then the streams end); later calls are refused. */
    @Test
    @Timeout(60)
    void shutdownLetsCallsInFlightFinish() throws Exception {
        GrpcTestServer s = new GrpcTestServer(true);
        try {
            KVGrpc.KVFutureStub f = KVGrpc.newFutureStub(s.channel).withDeadlineAfter(30, TimeUnit.SECONDS);
            f.put(put("warm", "1")).get(30, TimeUnit.SECONDS);
            List<CompletableFuture<String>> calls = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                var c = f.put(put("k" + i, "v"));
                CompletableFuture<String> r = new CompletableFuture<>();
                c.addListener(() -> {
                    try {
                        c.get();
                        r.complete("OK");
                    } catch (Exception e) {
                        r.complete(Status.fromThrowable(e).getCode().name());
                    }
                }, Runnable::run);
                calls.add(r);
            }
            s.grpc.close();
            for (CompletableFuture<String> c : calls) {
                String code = c.get(30, TimeUnit.SECONDS);
                assertTrue(code.equals("OK") || code.equals("UNAVAILABLE"), code);
            }
            StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
                    () -> s.blocking().get(get("warm")));
            assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
        } finally {
            s.channel.shutdownNow();
            s.spinel.close();
        }
    }

    @Test
    void grpcTimeoutValues() {
        assertEquals(5_000_000_000L, GrpcWire.timeoutNanos("5S"));
        assertEquals(20_000_000L, GrpcWire.timeoutNanos("20m"));
        assertEquals(7L, GrpcWire.timeoutNanos("7n"));
        assertEquals(Long.MAX_VALUE, GrpcWire.timeoutNanos("99999999H"), "saturates: no deadline that matters");
        assertEquals(-1, GrpcWire.timeoutNanos("5"));
        assertEquals(-1, GrpcWire.timeoutNanos("123456789S"));
        assertEquals(-1, GrpcWire.timeoutNanos("5x"));
        assertEquals(-1, GrpcWire.timeoutNanos("-5S"));
        assertTrue(GrpcWire.grpcContentType("application/grpc"));
        assertTrue(GrpcWire.grpcContentType("Application/GRPC+proto"));
        assertTrue(GrpcWire.grpcContentType("application/grpc;charset=utf-8"));
        assertTrue(!GrpcWire.grpcContentType("application/grpcx"));
        assertTrue(!GrpcWire.grpcContentType("application/json"));
    }
}
