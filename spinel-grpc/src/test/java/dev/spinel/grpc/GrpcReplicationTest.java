package dev.spinel.grpc;

import com.google.protobuf.ByteString;
import dev.spinel.grpc.v1.BatchOp;
import dev.spinel.grpc.v1.BatchRequest;
import dev.spinel.grpc.v1.BatchResponse;
import dev.spinel.grpc.v1.DeleteRequest;
import dev.spinel.grpc.v1.Event;
import dev.spinel.grpc.v1.GetRequest;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.grpc.v1.PutRequest;
import dev.spinel.grpc.v1.WatchRequest;
import dev.spinel.grpc.v1.WatchResponse;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gRPC writes replicate as RESP writes do (one write path: the master's log and stream carry them), and a gRPC Watch
 * on a replica sees the changes the master's stream applies there (issue #17): a Put, a Batch, a Delete made through
 * gRPC on the master, and a RESP write on the master; the replica refuses a gRPC write as it refuses a RESP one.
 */
class GrpcReplicationTest {
    @Test
    void grpcWritesReachTheReplicaAndItsWatchers() throws Exception {
        try (GrpcTestServer master = new GrpcTestServer("repl-diskless-sync-delay", "0");
             GrpcTestServer replica = new GrpcTestServer("replicaof", "127.0.0.1 " + master.spinel.port());
             Jedis m = master.jedis();
             Jedis r = replica.jedis()) {
            awaitLinkUp(r);
            BlockingQueue<Event> events = new LinkedBlockingQueue<>();
            CountDownLatch created = new CountDownLatch(1);
            replica.async().watch(WatchRequest.newBuilder().setPrefix(b("g:")).build(), new StreamObserver<>() {
                public void onNext(WatchResponse w) {
                    if (w.getCreated()) {
                        created.countDown();
                    }
                    events.addAll(w.getEventsList());
                }

                public void onError(Throwable t) {
                }

                public void onCompleted() {
                }
            });
            assertTrue(created.await(10, TimeUnit.SECONDS), "the Watch was not created");
            KVGrpc.KVBlockingStub kv = master.blocking();
            kv.put(PutRequest.newBuilder().setKey(b("g:1")).setValue(b("one")).build());
            Event e = next(events);
            assertEquals(Event.Type.PUT, e.getType());
            assertEquals("g:1", e.getKv().getKey().toStringUtf8());
            assertEquals("one", e.getKv().getValue().toStringUtf8());

            BlockingQueue<BatchResponse> batched = new LinkedBlockingQueue<>();
            StreamObserver<BatchRequest> batch = master.async().batch(new StreamObserver<>() {
                public void onNext(BatchResponse br) {
                    batched.add(br);
                }

                public void onError(Throwable t) {
                }

                public void onCompleted() {
                }
            });
            batch.onNext(BatchRequest.newBuilder()
                    .addOps(BatchOp.newBuilder().setPut(PutRequest.newBuilder().setKey(b("g:2")).setValue(b("two"))))
                    .addOps(BatchOp.newBuilder().setPut(PutRequest.newBuilder().setKey(b("g:3")).setValue(b("three"))))
                    .build());
            assertEquals(2, batched.poll(10, TimeUnit.SECONDS).getResultsCount());
            batch.onCompleted();
            assertEquals("g:2", next(events).getKv().getKey().toStringUtf8());
            assertEquals("g:3", next(events).getKv().getKey().toStringUtf8());

            m.set("g:4", "resp");
            e = next(events);
            assertEquals("g:4", e.getKv().getKey().toStringUtf8());
            assertEquals("resp", e.getKv().getValue().toStringUtf8());

            kv.delete(DeleteRequest.newBuilder().setKey(b("g:1")).build());
            e = next(events);
            assertEquals(Event.Type.DELETE, e.getType());
            assertEquals("g:1", e.getKv().getKey().toStringUtf8());

            assertEquals("two", replica.blocking().get(GetRequest.newBuilder().setKey(b("g:2")).build()).getKv().getValue().toStringUtf8());
            assertEquals("three", r.get("g:3"));
            StatusRuntimeException refused = assertThrows(StatusRuntimeException.class,
                    () -> replica.blocking().put(PutRequest.newBuilder().setKey(b("g:5")).setValue(b("no")).build()));
            assertEquals(io.grpc.Status.Code.FAILED_PRECONDITION, refused.getStatus().getCode());
            assertEquals("READONLY You can't write against a read only replica.", refused.getStatus().getDescription());
            assertEquals(m.info("replication").lines().filter(l -> l.startsWith("master_repl_offset:")).findFirst().orElseThrow(),
                    awaitOffset(r, m));

            // a stale replica (link down, replica-serve-stale-data no) refuses reads too, as RESP's GET
            r.configSet("replica-serve-stale-data", "no");
            r.replicaof("127.0.0.1", 1); // nobody listens there
            StatusRuntimeException stale = assertThrows(StatusRuntimeException.class,
                    () -> replica.blocking().get(GetRequest.newBuilder().setKey(b("g:2")).build()));
            assertEquals(io.grpc.Status.Code.UNAVAILABLE, stale.getStatus().getCode());
            assertEquals("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
                    stale.getStatus().getDescription());
        }
    }

    private static void awaitLinkUp(Jedis r) throws InterruptedException {
        for (int i = 0; i < 400 && !r.info("replication").contains("master_link_status:up"); i++) {
            Thread.sleep(50);
        }
        assertTrue(r.info("replication").contains("master_link_status:up"));
    }

    /** The replica's processed offset once it equals the master's, as "master_repl_offset:N". */
    private static String awaitOffset(Jedis r, Jedis m) throws InterruptedException {
        String want = m.info("replication").lines().filter(l -> l.startsWith("master_repl_offset:")).findFirst().orElseThrow();
        String got = "";
        for (int i = 0; i < 200; i++) {
            got = r.info("replication").lines().filter(l -> l.startsWith("slave_repl_offset:")).findFirst().orElseThrow()
                    .replace("slave_repl_offset:", "master_repl_offset:");
            if (got.equals(want)) {
                break;
            }
            Thread.sleep(50);
        }
        return got;
    }

    private static Event next(BlockingQueue<Event> events) throws InterruptedException {
        Event e = events.poll(10, TimeUnit.SECONDS);
        assertNotNull(e, "no event on the replica's Watch");
        return e;
    }

    private static ByteString b(String s) {
        return ByteString.copyFromUtf8(s);
    }
}
