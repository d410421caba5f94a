package dev.spinel.grpc;

import dev.spinel.grpc.v1.BatchOp;
import dev.spinel.grpc.v1.BatchResponse;
import dev.spinel.grpc.v1.RequestOp;
import dev.spinel.grpc.v1.ScanRequest;
import dev.spinel.grpc.v1.ScanResponse;
import dev.spinel.grpc.v1.TxnRequest;
import dev.spinel.grpc.v1.WatchRequest;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.grpc.v1.PutResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.spinel.grpc.Ops.b;
import static dev.spinel.grpc.Ops.get;
import static dev.spinel.grpc.Ops.op;
import static dev.spinel.grpc.Ops.put;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CLIENT PAUSE WRITE holds gRPC writes as it holds RESP ones: a Put waits (it is neither refused nor run)
 * until CLIENT UNPAUSE, or fails with DEADLINE_EXCEEDED at its deadline without writing; reads go on.
 * CLIENT PAUSE ALL holds every read too, as Redis holds every command: Get, a Batch's Get, a Txn without
 * writes, Scan and a new Watch.
 */
class GrpcClientPauseTest {
    @Test
    @Timeout(60)
    void aPausedWriteWaitsForUnpauseAndAReadDoesNot() throws Exception {
        try (GrpcTestServer s = new GrpcTestServer(); Jedis j = s.jedis()) {
            KVGrpc.KVBlockingStub kv = s.blocking();
            kv.put(put("r", "1"));
            j.clientPause(60_000, redis.clients.jedis.args.ClientPauseMode.WRITE);
            CompletableFuture<PutResponse> held = CompletableFuture.supplyAsync(() -> kv.put(put("w", "2")));
            assertEquals("1", kv.get(get("r")).getKv().getValue().toStringUtf8(), "reads are not held");
            Thread.sleep(300);
            assertFalse(held.isDone(), "the write waits for the pause");
            assertFalse(j.exists("w"));
            BatchResponse[] batch = new BatchResponse[1];
            CompletableFuture<Void> batched = CompletableFuture.runAsync(() -> {
                try {
                    batch[0] = Ops.batch(s.async(), op(put("b", "3")));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            Thread.sleep(200);
            assertFalse(batched.isDone(), "a Batch write waits too");
            j.clientUnpause();
            held.get(10, TimeUnit.SECONDS);
            batched.get(10, TimeUnit.SECONDS);
            assertEquals("2", j.get("w"));
            assertEquals("3", j.get("b"));
            assertEquals(0, batch[0].getResults(0).getCode());
        }
    }

    @Test
    @Timeout(60)
    void aPausedWriteFailsAtItsDeadlineWithoutWriting() throws Exception {
        try (GrpcTestServer s = new GrpcTestServer(); Jedis j = s.jedis()) {
            j.clientPause(60_000, redis.clients.jedis.args.ClientPauseMode.WRITE);
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                    () -> s.blocking().withDeadlineAfter(500, TimeUnit.MILLISECONDS).put(put("late", "x")));
            assertEquals(Status.Code.DEADLINE_EXCEEDED, e.getStatus().getCode());
            j.clientUnpause();
            Thread.sleep(200);
            assertFalse(j.exists("late"), "a call past its deadline never writes");
            s.blocking().put(put("after", "y"));
            assertTrue(j.exists("after"));
        }
    }

    @Test
    @Timeout(60)
    void thePauseEndTimeReleasesAHeldWrite() throws Exception {
        try (GrpcTestServer s = new GrpcTestServer(); Jedis j = s.jedis()) {
            j.clientPause(400, redis.clients.jedis.args.ClientPauseMode.WRITE);
            long t0 = System.nanoTime();
            s.blocking().put(put("k", "v"));
            assertTrue(System.nanoTime() - t0 > TimeUnit.MILLISECONDS.toNanos(250), "it waited for the pause's end");
            assertEquals("v", j.get("k"));
        }
    }

    private static int scanned(KVGrpc.KVBlockingStub kv, ScanRequest r) {
        int n = 0;
        for (Iterator<ScanResponse> it = kv.scan(r); it.hasNext(); ) {
            n += it.next().getKvsCount();
        }
        return n;
    }

    @Test
    @Timeout(60)
    void pauseAllHoldsEveryReadUntilItEnds() throws Exception {
        try (GrpcTestServer s = new GrpcTestServer(); Jedis j = s.jedis()) {
            KVGrpc.KVBlockingStub kv = s.blocking();
            kv.put(put("r", "1"));
            // Under PAUSE ALL, Redis 7.0 holds CLIENT UNPAUSE too: the pause's end time releases the reads.
            j.clientPause(5_000, redis.clients.jedis.args.ClientPauseMode.ALL);
            long t0 = System.nanoTime();
            List<CompletableFuture<?>> held = new ArrayList<>();
            CompletableFuture<String> unary = CompletableFuture.supplyAsync(() -> kv.get(get("r")).getKv().getValue().toStringUtf8());
            CompletableFuture<BatchResponse> batched = CompletableFuture.supplyAsync(() -> {
                try {
                    return Ops.batch(s.async(), BatchOp.newBuilder().setGet(get("r")).build());
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            CompletableFuture<Boolean> txn = CompletableFuture.supplyAsync(() -> kv.txn(TxnRequest.newBuilder()
                    .addSuccessOps(RequestOp.newBuilder().setGet(get("r"))).build()).getSucceeded());
            CompletableFuture<Integer> scan = CompletableFuture.supplyAsync(() -> scanned(kv, ScanRequest.getDefaultInstance()));
            CompletableFuture<Boolean> watch = CompletableFuture.supplyAsync(
                    () -> GrpcAclTest.created(kv, WatchRequest.newBuilder().setKey(b("r")).build()));
            held.addAll(List.of(unary, batched, txn, scan, watch));
            StatusRuntimeException late = assertThrows(StatusRuntimeException.class,
                    () -> scanned(s.blocking().withDeadlineAfter(500, TimeUnit.MILLISECONDS), ScanRequest.getDefaultInstance()));
            assertEquals(Status.Code.DEADLINE_EXCEEDED, late.getStatus().getCode(), "a held Scan fails at its deadline");
            for (int i = 0; i < held.size(); i++) {
                assertFalse(held.get(i).isDone(), "read " + i + " waits for the pause");
            }
            assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(4_500), "checked while paused");
            assertEquals("1", unary.get(10, TimeUnit.SECONDS));
            assertEquals("1", batched.get(10, TimeUnit.SECONDS).getResults(0).getGet().getKv().getValue().toStringUtf8());
            assertTrue(txn.get(10, TimeUnit.SECONDS));
            assertEquals(1, scan.get(10, TimeUnit.SECONDS));
            assertTrue(watch.get(10, TimeUnit.SECONDS));
        }
    }
}
