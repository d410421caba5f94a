package dev.spinel.grpc;

import com.google.protobuf.ByteString;
import dev.spinel.grpc.v1.Compare;
import dev.spinel.grpc.v1.GetRequest;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.grpc.v1.KeyValue;
import dev.spinel.grpc.v1.PutRequest;
import dev.spinel.grpc.v1.RequestOp;
import dev.spinel.grpc.v1.TxnRequest;
import dev.spinel.grpc.v1.UpdateRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many clients increment one counter with optimistic concurrency (versioned Update, or a Txn that
 * compares the version): no increment is lost, so the final value is the number of successes. One
 * variant mixes in RESP INCR-like writes (SET of the next value under WATCH) to show RESP writes move
 * versions too.
 */
class KvConcurrencyTest {
    static GrpcTestServer server;
    static final int CLIENTS = 6;
    static final int INCREMENTS = 60;

    @BeforeAll
    static void start() throws Exception {
        server = new GrpcTestServer();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    interface Attempt {
        /** One try: true if the increment was applied, false if it lost the race. */
        boolean tryIncrement(KVGrpc.KVBlockingStub kv, ByteString key);
    }

    private static long run(String key, Attempt attempt, long[] conflicts) throws Exception {
        ByteString k = ByteString.copyFromUtf8(key);
        server.blocking().put(PutRequest.newBuilder().setKey(k).setValue(ByteString.copyFromUtf8("0")).build());
        AtomicLong successes = new AtomicLong();
        AtomicLong lost = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                fs.add(pool.submit(() -> {
                    KVGrpc.KVBlockingStub kv = server.blocking();
                    for (int i = 0; i < INCREMENTS; i++) {
                        while (!attempt.tryIncrement(kv, k)) {
                            lost.incrementAndGet();
                        }
                        successes.incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        conflicts[0] = lost.get();
        long value = Long.parseLong(server.blocking().get(GetRequest.newBuilder().setKey(k).build()).getKv().getValue().toStringUtf8());
        assertEquals(successes.get(), value);
        return value;
    }

    @Test
    void versionedUpdateLosesNothing() throws Exception {
        long[] conflicts = new long[1];
        long v = run("cnt:update", (kv, k) -> {
            KeyValue cur = kv.get(GetRequest.newBuilder().setKey(k).build()).getKv();
            long next = Long.parseLong(cur.getValue().toStringUtf8()) + 1;
            try {
                kv.update(UpdateRequest.newBuilder().setKey(k).setValue(ByteString.copyFromUtf8(Long.toString(next)))
                        .setExpectedVersion(cur.getVersion()).build());
                return true;
            } catch (StatusRuntimeException e) {
                assertEquals(Status.Code.FAILED_PRECONDITION, e.getStatus().getCode());
                return false;
            }
        }, conflicts);
        assertEquals(CLIENTS * INCREMENTS, v);
    }

    @Test
    void txnCompareAndSwapLosesNothing() throws Exception {
        long[] conflicts = new long[1];
        long v = run("cnt:txn", (kv, k) -> {
            KeyValue cur = kv.get(GetRequest.newBuilder().setKey(k).build()).getKv();
            long next = Long.parseLong(cur.getValue().toStringUtf8()) + 1;
            return kv.txn(TxnRequest.newBuilder()
                    .addCompares(Compare.newBuilder().setKey(k).setTarget(Compare.Target.VERSION).setVersion(cur.getVersion()))
                    .addSuccessOps(RequestOp.newBuilder().setPut(PutRequest.newBuilder().setKey(k)
                            .setValue(ByteString.copyFromUtf8(Long.toString(next)))))
                    .build()).getSucceeded();
        }, conflicts);
        assertEquals(CLIENTS * INCREMENTS, v);
    }

    @Test
    void respWritersAndGrpcWritersTogether() throws Exception {
        // gRPC clients increment with versioned updates while a RESP client increments with WATCH/MULTI/EXEC.
        ByteString k = ByteString.copyFromUtf8("cnt:mixed");
        server.blocking().put(PutRequest.newBuilder().setKey(k).setValue(ByteString.copyFromUtf8("0")).build());
        int respIncrements = 100;
        Thread resp = new Thread(() -> {
            try (Jedis j = server.jedis()) {
                for (int i = 0; i < respIncrements; ) {
                    j.watch("cnt:mixed");
                    long cur = Long.parseLong(j.get("cnt:mixed"));
                    var t = j.multi();
                    t.set("cnt:mixed", Long.toString(cur + 1));
                    if (t.exec() != null) {
                        i++;
                    }
                }
            }
        });
        resp.start();
        long[] conflicts = new long[1];
        AtomicLong grpcSuccesses = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> fs = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            fs.add(pool.submit(() -> {
                KVGrpc.KVBlockingStub kv = server.blocking();
                for (int i = 0; i < 50; ) {
                    KeyValue cur = kv.get(GetRequest.newBuilder().setKey(k).build()).getKv();
                    try {
                        kv.update(UpdateRequest.newBuilder().setKey(k).setExpectedVersion(cur.getVersion())
                                .setValue(ByteString.copyFromUtf8(Long.toString(Long.parseLong(cur.getValue().toStringUtf8()) + 1))).build());
                        i++;
                        grpcSuccesses.incrementAndGet();
                    } catch (StatusRuntimeException e) {
                        conflicts[0]++;
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        pool.shutdown();
        resp.join();
        long value = Long.parseLong(server.blocking().get(GetRequest.newBuilder().setKey(k).build()).getKv().getValue().toStringUtf8());
        assertEquals(200 + respIncrements, value);
        assertTrue(grpcSuccesses.get() == 200);
    }
}
