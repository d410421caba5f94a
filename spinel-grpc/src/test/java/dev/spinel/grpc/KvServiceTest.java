package dev.spinel.grpc;

import com.google.protobuf.ByteString;
import dev.spinel.grpc.v1.BatchOp;
import dev.spinel.grpc.v1.BatchRequest;
import dev.spinel.grpc.v1.BatchResponse;
import dev.spinel.grpc.v1.Compare;
import dev.spinel.grpc.v1.CreateRequest;
import dev.spinel.grpc.v1.DeleteRequest;
import dev.spinel.grpc.v1.GetRequest;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.grpc.v1.KeyValue;
import dev.spinel.grpc.v1.PutRequest;
import dev.spinel.grpc.v1.RequestOp;
import dev.spinel.grpc.v1.ScanRequest;
import dev.spinel.grpc.v1.ScanResponse;
import dev.spinel.grpc.v1.TxnRequest;
import dev.spinel.grpc.v1.TxnResponse;
import dev.spinel.grpc.v1.UpdateRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.spinel.grpc.Ops.get;
import static dev.spinel.grpc.Ops.op;
import static dev.spinel.grpc.Ops.put;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Behaviour of every KV RPC and status code. */
class KvServiceTest {
    static GrpcTestServer server;
    static KVGrpc.KVBlockingStub kv;

    @BeforeAll
    static void start() throws Exception {
        server = new GrpcTestServer("proto-max-bulk-len", "1mb");
        kv = server.blocking();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    static ByteString b(String s) {
        return ByteString.copyFromUtf8(s);
    }

    static Status.Code code(Runnable r) {
        return assertThrows(StatusRuntimeException.class, r::run).getStatus().getCode();
    }

    @Test
    void createGetUpdateDeletePut() {
        long v1 = kv.create(CreateRequest.newBuilder().setKey(b("crud")).setValue(b("a")).build()).getVersion();
        assertTrue(v1 > 0);
        assertEquals(Status.Code.ALREADY_EXISTS, code(() -> kv.create(CreateRequest.newBuilder().setKey(b("crud")).setValue(b("x")).build())));
        KeyValue got = kv.get(GetRequest.newBuilder().setKey(b("crud")).build()).getKv();
        assertEquals("a", got.getValue().toStringUtf8());
        assertEquals(v1, got.getVersion());

        long v2 = kv.update(UpdateRequest.newBuilder().setKey(b("crud")).setValue(b("b")).build()).getVersion();
        assertTrue(v2 > v1);
        assertEquals(Status.Code.FAILED_PRECONDITION, code(() -> kv.update(UpdateRequest.newBuilder()
                .setKey(b("crud")).setValue(b("c")).setExpectedVersion(v1).build())));
        long v3 = kv.update(UpdateRequest.newBuilder().setKey(b("crud")).setValue(b("c")).setExpectedVersion(v2).build()).getVersion();
        assertTrue(v3 > v2);
        assertEquals("c", kv.get(GetRequest.newBuilder().setKey(b("crud")).build()).getKv().getValue().toStringUtf8());

        assertEquals(Status.Code.FAILED_PRECONDITION, code(() -> kv.delete(DeleteRequest.newBuilder().setKey(b("crud")).setExpectedVersion(v2).build())));
        assertEquals(v3, kv.delete(DeleteRequest.newBuilder().setKey(b("crud")).setExpectedVersion(v3).build()).getVersion());
        assertEquals(Status.Code.NOT_FOUND, code(() -> kv.get(GetRequest.newBuilder().setKey(b("crud")).build())));
        assertEquals(Status.Code.NOT_FOUND, code(() -> kv.update(UpdateRequest.newBuilder().setKey(b("crud")).setValue(b("x")).build())));
        assertEquals(Status.Code.NOT_FOUND, code(() -> kv.delete(DeleteRequest.newBuilder().setKey(b("crud")).build())));
        assertEquals(Status.Code.NOT_FOUND, code(() -> kv.update(UpdateRequest.newBuilder().setKey(b("crud")).setValue(b("x")).setExpectedVersion(v3).build())));

        var p1 = kv.put(PutRequest.newBuilder().setKey(b("crud")).setValue(b("p")).build());
        assertTrue(p1.getCreated());
        assertTrue(p1.getVersion() > v3, "re-created key gets a greater version (no ABA)");
        var p2 = kv.put(PutRequest.newBuilder().setKey(b("crud")).setValue(b("q")).build());
        assertFalse(p2.getCreated());
        assertTrue(p2.getVersion() > p1.getVersion());
        assertTrue(p2.getHeader().getRevision() >= p2.getVersion());
    }

    @Test
    void aWriteHandsOutOneVersion() {
        // The engine's change hook sees the service's own SET too; the unit stamps the key itself, so
        // the hook must not move the version a second time.
        long v1 = kv.put(PutRequest.newBuilder().setKey(b("once")).setValue(b("a")).build()).getVersion();
        long v2 = kv.put(PutRequest.newBuilder().setKey(b("once")).setValue(b("b")).build()).getVersion();
        assertEquals(v1 + 1, v2);
        long v3 = kv.update(UpdateRequest.newBuilder().setKey(b("once")).setValue(b("c")).setExpectedVersion(v2).build()).getVersion();
        assertEquals(v2 + 1, v3);
        assertEquals(v3, kv.get(GetRequest.newBuilder().setKey(b("once")).build()).getKv().getVersion());
    }

    @Test
    void invalidArguments() {
        assertEquals(Status.Code.INVALID_ARGUMENT, code(() -> kv.get(GetRequest.newBuilder().build())));
        assertEquals(Status.Code.INVALID_ARGUMENT, code(() -> kv.put(PutRequest.newBuilder().setValue(b("v")).build())));
        assertEquals(Status.Code.INVALID_ARGUMENT, code(() -> kv.put(PutRequest.newBuilder().setKey(b("k")).setTtlMs(-1).build())));
        ByteString big = ByteString.copyFrom(new byte[1024 * 1024 + 1]); // proto-max-bulk-len is 1mb here
        assertEquals(Status.Code.INVALID_ARGUMENT, code(() -> kv.put(PutRequest.newBuilder().setKey(b("big")).setValue(big).build())));
        assertEquals(Status.Code.NOT_FOUND, code(() -> kv.get(GetRequest.newBuilder().setKey(b("big")).build())));
        ByteString huge = ByteString.copyFrom(new byte[5 * 1024 * 1024]); // grpc-max-message-size is 4mb
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, code(() -> kv.put(PutRequest.newBuilder().setKey(b("huge")).setValue(huge).build())));
    }

    @Test
    void deadlineExceeded() {
        assertEquals(Status.Code.DEADLINE_EXCEEDED, code(() -> kv.withDeadlineAfter(1, TimeUnit.NANOSECONDS)
                .get(GetRequest.newBuilder().setKey(b("dl")).build())));
    }

    @Test
    void ttl() throws Exception {
        var r = kv.create(CreateRequest.newBuilder().setKey(b("ttl")).setValue(b("v")).setTtlMs(100_000).build());
        KeyValue got = kv.get(GetRequest.newBuilder().setKey(b("ttl")).build()).getKv();
        assertTrue(got.getExpireAtMs() > System.currentTimeMillis() + 90_000);
        kv.update(UpdateRequest.newBuilder().setKey(b("ttl")).setValue(b("w")).build());
        assertTrue(kv.get(GetRequest.newBuilder().setKey(b("ttl")).build()).getKv().getExpireAtMs() > 0, "Update keeps the TTL");
        kv.put(PutRequest.newBuilder().setKey(b("ttl")).setValue(b("x")).build());
        assertEquals(0, kv.get(GetRequest.newBuilder().setKey(b("ttl")).build()).getKv().getExpireAtMs(), "Put without ttl clears it");
        kv.put(PutRequest.newBuilder().setKey(b("short")).setValue(b("x")).setTtlMs(30).build());
        Thread.sleep(60);
        assertEquals(Status.Code.NOT_FOUND, code(() -> kv.get(GetRequest.newBuilder().setKey(b("short")).build())));
        assertTrue(r.getVersion() > 0);
    }

    /** A stand-in collection value (no collection type may be merged yet): what matters is "not a string". */
    record FakeList(long size) implements dev.spinel.store.TypedValue {
        public dev.spinel.store.ValueType type() {
            return dev.spinel.store.ValueType.LIST;
        }

        public String encoding() {
            return "listpack";
        }

        public long memoryUsage() {
            return 16;
        }

        public dev.spinel.store.TypedValue copy() {
            return this;
        }
    }

    static void storeCollection(String key) {
        byte[] k = key.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int h = dev.spinel.store.KeyHash.hash(k);
        var seg = server.spinel.engine().keyspace().db(0).segment(h);
        seg.lock();
        try {
            seg.put(k, h, new FakeList(1), -1);
        } finally {
            seg.unlock();
        }
    }

    @Test
    void wrongTypeIsFailedPrecondition() {
        storeCollection("coll");
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> kv.get(GetRequest.newBuilder().setKey(b("coll")).build()));
        assertEquals(Status.Code.FAILED_PRECONDITION, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().startsWith("WRONGTYPE"));
        // A Txn whose get hits it fails before any op runs: the put before it did not happen.
        assertEquals(Status.Code.FAILED_PRECONDITION, code(() -> kv.txn(TxnRequest.newBuilder()
                .addSuccessOps(RequestOp.newBuilder().setPut(PutRequest.newBuilder().setKey(b("txn-atomic")).setValue(b("x"))))
                .addSuccessOps(RequestOp.newBuilder().setGet(GetRequest.newBuilder().setKey(b("coll"))))
                .build())));
        assertEquals(Status.Code.NOT_FOUND, code(() -> kv.get(GetRequest.newBuilder().setKey(b("txn-atomic")).build())));
        // Scan lists it with its version but no value; Put replaces it with a string, as SET does.
        kv.scan(ScanRequest.newBuilder().setPrefix(b("coll")).build()).forEachRemaining(m -> m.getKvsList().forEach(x -> {
            assertTrue(x.getValue().isEmpty());
            assertTrue(x.getVersion() > 0);
        }));
        assertTrue(kv.put(PutRequest.newBuilder().setKey(b("coll")).setValue(b("s")).build()).getVersion() > 0);
        assertEquals("s", kv.get(GetRequest.newBuilder().setKey(b("coll")).build()).getKv().getValue().toStringUtf8());
    }

    @Test
    void txnComparesAndBranches() {
        long v = kv.put(PutRequest.newBuilder().setKey(b("t1")).setValue(b("10")).build()).getVersion();
        TxnResponse ok = kv.txn(TxnRequest.newBuilder()
                .addCompares(Compare.newBuilder().setKey(b("t1")).setTarget(Compare.Target.VERSION).setVersion(v))
                .addCompares(Compare.newBuilder().setKey(b("t1")).setTarget(Compare.Target.VALUE).setValue(b("10")))
                .addCompares(Compare.newBuilder().setKey(b("t2")).setTarget(Compare.Target.EXISTS).setExists(false))
                .addSuccessOps(RequestOp.newBuilder().setPut(PutRequest.newBuilder().setKey(b("t1")).setValue(b("11"))))
                .addSuccessOps(RequestOp.newBuilder().setPut(PutRequest.newBuilder().setKey(b("t2")).setValue(b("new"))))
                .addSuccessOps(RequestOp.newBuilder().setGet(GetRequest.newBuilder().setKey(b("t1"))))
                .addFailureOps(RequestOp.newBuilder().setDelete(DeleteRequest.newBuilder().setKey(b("t1"))))
                .build());
        assertTrue(ok.getSucceeded());
        assertEquals(3, ok.getResponsesCount());
        assertEquals("11", ok.getResponses(2).getGet().getKv().getValue().toStringUtf8());
        assertTrue(ok.getResponses(1).getPut().getCreated());

        TxnResponse failed = kv.txn(TxnRequest.newBuilder()
                .addCompares(Compare.newBuilder().setKey(b("t1")).setTarget(Compare.Target.VERSION).setVersion(v)) // stale
                .addSuccessOps(RequestOp.newBuilder().setPut(PutRequest.newBuilder().setKey(b("t1")).setValue(b("bad"))))
                .addFailureOps(RequestOp.newBuilder().setDelete(DeleteRequest.newBuilder().setKey(b("t2"))))
                .addFailureOps(RequestOp.newBuilder().setGet(GetRequest.newBuilder().setKey(b("t2"))))
                .build());
        assertFalse(failed.getSucceeded());
        assertTrue(failed.getResponses(0).getDelete().getVersion() > 0);
        assertFalse(failed.getResponses(1).getGet().hasKv());
        assertEquals("11", kv.get(GetRequest.newBuilder().setKey(b("t1")).build()).getKv().getValue().toStringUtf8());

        // GREATER / LESS on values (unsigned bytes) and versions; version 0 = absent.
        assertTrue(kv.txn(TxnRequest.newBuilder()
                .addCompares(Compare.newBuilder().setKey(b("t1")).setTarget(Compare.Target.VALUE).setResult(Compare.Result.GREATER).setValue(b("10")))
                .addCompares(Compare.newBuilder().setKey(b("t1")).setTarget(Compare.Target.VALUE).setResult(Compare.Result.LESS).setValue(b("2")))
                .addCompares(Compare.newBuilder().setKey(b("t2")).setTarget(Compare.Target.VERSION).setVersion(0))
                .addCompares(Compare.newBuilder().setKey(b("t1")).setTarget(Compare.Target.VERSION).setResult(Compare.Result.NOT_EQUAL).setVersion(0))
                .build()).getSucceeded());
        assertEquals(Status.Code.INVALID_ARGUMENT, code(() -> kv.txn(TxnRequest.newBuilder()
                .addCompares(Compare.newBuilder().setKey(b("t1")).setTarget(Compare.Target.EXISTS).setResult(Compare.Result.GREATER)).build())));
        assertEquals(Status.Code.INVALID_ARGUMENT, code(() -> kv.txn(TxnRequest.newBuilder()
                .addSuccessOps(RequestOp.newBuilder().setPut(PutRequest.newBuilder().setKey(b("t1")).setValue(b("z"))))
                .addSuccessOps(RequestOp.newBuilder().setPut(PutRequest.newBuilder().setValue(b("z")))).build())));
        assertEquals("11", kv.get(GetRequest.newBuilder().setKey(b("t1")).build()).getKv().getValue().toStringUtf8(),
                "an invalid Txn changes nothing");
    }

    @Test
    void scanPrefixRangeAndPages() {
        for (int i = 0; i < 300; i++) {
            kv.put(PutRequest.newBuilder().setKey(b(String.format("scan:%03d", i))).setValue(b("v" + i)).build());
        }
        kv.put(PutRequest.newBuilder().setKey(b("scanx")).setValue(b("other")).build());
        Set<String> all = new HashSet<>();
        Iterator<ScanResponse> it = kv.scan(ScanRequest.newBuilder().setPrefix(b("scan:")).build());
        it.forEachRemaining(m -> m.getKvsList().forEach(x -> {
            assertEquals("v" + Integer.parseInt(x.getKey().toStringUtf8().substring(5)), x.getValue().toStringUtf8());
            assertTrue(all.add(x.getKey().toStringUtf8()));
        }));
        assertEquals(300, all.size());

        Set<String> paged = new HashSet<>();
        ByteString token = ByteString.EMPTY;
        int pages = 0;
        do {
            ByteString next = ByteString.EMPTY;
            int inPage = 0;
            Iterator<ScanResponse> p = kv.scan(ScanRequest.newBuilder().setPrefix(b("scan:")).setLimit(7).setKeysOnly(true).setPageToken(token).build());
            while (p.hasNext()) {
                ScanResponse m = p.next();
                for (KeyValue x : m.getKvsList()) {
                    assertTrue(x.getValue().isEmpty());
                    assertTrue(paged.add(x.getKey().toStringUtf8()), "no key twice");
                    inPage++;
                }
                if (!m.getNextPageToken().isEmpty()) {
                    next = m.getNextPageToken();
                }
            }
            assertTrue(inPage <= 7);
            token = next;
            pages++;
        } while (!token.isEmpty());
        assertEquals(all, paged);
        assertTrue(pages >= 300 / 7);

        Set<String> range = new HashSet<>();
        kv.scan(ScanRequest.newBuilder().setRangeStart(b("scan:100")).setRangeEnd(b("scan:110")).build())
                .forEachRemaining(m -> m.getKvsList().forEach(x -> range.add(x.getKey().toStringUtf8())));
        assertEquals(10, range.size());
        assertTrue(range.contains("scan:100") && range.contains("scan:109") && !range.contains("scan:110"));
        assertEquals(Status.Code.INVALID_ARGUMENT, code(() -> kv.scan(ScanRequest.newBuilder().setPrefix(b("a"))
                .setRangeStart(b("b")).build()).hasNext()));
    }

    @Test
    void batchRepliesInOrder() throws Exception {
        CompletableFuture<List<BatchResponse>> done = new CompletableFuture<>();
        List<BatchResponse> got = new java.util.ArrayList<>();
        StreamObserver<BatchRequest> in = server.async().batch(new StreamObserver<>() {
            public void onNext(BatchResponse r) {
                got.add(r);
            }

            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            public void onCompleted() {
                done.complete(got);
            }
        });
        in.onNext(BatchRequest.newBuilder()
                .addOps(BatchOp.newBuilder().setCreate(CreateRequest.newBuilder().setKey(b("bt")).setValue(b("1"))))
                .addOps(BatchOp.newBuilder().setCreate(CreateRequest.newBuilder().setKey(b("bt")).setValue(b("2"))))
                .addOps(BatchOp.newBuilder().setGet(GetRequest.newBuilder().setKey(b("bt"))))
                .addOps(BatchOp.newBuilder().setUpdate(UpdateRequest.newBuilder().setKey(b("bt")).setValue(b("3")).setExpectedVersion(1)))
                .build());
        in.onNext(BatchRequest.newBuilder()
                .addOps(BatchOp.newBuilder().setDelete(DeleteRequest.newBuilder().setKey(b("bt"))))
                .addOps(BatchOp.newBuilder().setGet(GetRequest.newBuilder().setKey(b("bt"))))
                .addOps(BatchOp.newBuilder().setPut(PutRequest.newBuilder().setKey(b(""))))
                .build());
        in.onCompleted();
        List<BatchResponse> r = done.get(10, TimeUnit.SECONDS);
        assertEquals(2, r.size());
        assertEquals(0, r.get(0).getResults(0).getCode());
        assertEquals(Status.Code.ALREADY_EXISTS.value(), r.get(0).getResults(1).getCode());
        assertEquals("1", r.get(0).getResults(2).getGet().getKv().getValue().toStringUtf8());
        assertEquals(Status.Code.FAILED_PRECONDITION.value(), r.get(0).getResults(3).getCode());
        assertEquals(0, r.get(1).getResults(0).getCode());
        assertEquals(Status.Code.NOT_FOUND.value(), r.get(1).getResults(1).getCode());
        assertEquals(Status.Code.INVALID_ARGUMENT.value(), r.get(1).getResults(2).getCode());
        assertArrayEquals(new byte[0], r.get(1).getResults(1).getGet().getKv().getValue().toByteArray());
    }
    /**
     * A run of Puts in one Batch message is one unit (BatchPuts): a Put failing its own checks gets its error and the
     * rest are written, in order, each with its own version; a Get after the run sees it.
     */
    @Test
    void aRunOfBatchPutsKeepsEachPutsResult() throws Exception {
        try (Jedis j = server.jedis()) {
            j.lpush("bp:list", "x"); // a Put overwrites any type, as SET does
        }
        BatchResponse r = Ops.batch(server.async(),
                op(put("bp:a", "1")), op(put("", "2")), op(put("bp:list", "3")), op(put("bp:a", "4")),
                BatchOp.newBuilder().setPut(PutRequest.newBuilder().setKey(b("bp:t")).setValue(b("5")).setTtlMs(-1)).build(),
                op(put("bp:b", "6", 100_000)), BatchOp.newBuilder().setGet(get("bp:a")).build());
        assertEquals(7, r.getResultsCount());
        assertTrue(r.getResults(0).getPut().getCreated());
        assertEquals(Status.Code.INVALID_ARGUMENT.value(), r.getResults(1).getCode());
        assertEquals("key must not be empty", r.getResults(1).getMessage());
        assertFalse(r.getResults(2).getPut().getCreated());
        assertFalse(r.getResults(3).getPut().getCreated(), "the run's first Put created it");
        assertTrue(r.getResults(3).getPut().getVersion() > r.getResults(0).getPut().getVersion());
        assertEquals(Status.Code.INVALID_ARGUMENT.value(), r.getResults(4).getCode());
        assertTrue(r.getResults(5).getPut().getCreated());
        assertTrue(r.getResults(5).getPut().getHeader().getRevision() >= r.getResults(5).getPut().getVersion());
        assertEquals("4", r.getResults(6).getGet().getKv().getValue().toStringUtf8());
        assertEquals(r.getResults(3).getPut().getVersion(), r.getResults(6).getGet().getKv().getVersion());
        try (Jedis j = server.jedis()) {
            assertEquals("3", j.get("bp:list"));
            assertFalse(j.exists("bp:t"));
            assertTrue(j.pttl("bp:b") > 0);
        }
    }
}
