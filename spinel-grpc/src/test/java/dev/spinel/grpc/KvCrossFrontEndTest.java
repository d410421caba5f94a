package dev.spinel.grpc;

import com.google.protobuf.ByteString;
import dev.spinel.grpc.v1.DeleteRequest;
import dev.spinel.grpc.v1.Event;
import dev.spinel.grpc.v1.GetRequest;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.grpc.v1.PutRequest;
import dev.spinel.grpc.v1.UpdateRequest;
import dev.spinel.grpc.v1.WatchRequest;
import dev.spinel.grpc.v1.WatchResponse;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;

import java.util.Iterator;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RESP and gRPC see one keyspace; versions, WATCH, notifications and Watch streams cross front ends. */
class KvCrossFrontEndTest {
    static GrpcTestServer server;
    static KVGrpc.KVBlockingStub kv;

    @BeforeAll
    static void start() throws Exception {
        server = new GrpcTestServer();
        kv = server.blocking();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    static ByteString b(String s) {
        return ByteString.copyFromUtf8(s);
    }

    @Test
    void respWritesAreSeenByGrpcAndTheOtherWayRound() {
        try (Jedis j = server.jedis()) {
            j.set("x:resp", "from-resp");
            assertEquals("from-resp", kv.get(GetRequest.newBuilder().setKey(b("x:resp")).build()).getKv().getValue().toStringUtf8());
            kv.put(PutRequest.newBuilder().setKey(b("x:grpc")).setValue(b("from-grpc")).setTtlMs(50_000).build());
            assertEquals("from-grpc", j.get("x:grpc"));
            long pttl = j.pttl("x:grpc");
            assertTrue(pttl > 40_000 && pttl <= 50_000, "pttl " + pttl);
            j.del("x:grpc");
            assertEquals(Status.Code.NOT_FOUND, assertThrows(StatusRuntimeException.class,
                    () -> kv.get(GetRequest.newBuilder().setKey(b("x:grpc")).build())).getStatus().getCode());
        }
    }

    @Test
    void respSetMovesTheVersion() {
        try (Jedis j = server.jedis()) {
            long v1 = kv.put(PutRequest.newBuilder().setKey(b("x:ver")).setValue(b("1")).build()).getVersion();
            j.set("x:ver", "1"); // same bytes: still a write
            long v2 = kv.get(GetRequest.newBuilder().setKey(b("x:ver")).build()).getKv().getVersion();
            assertTrue(v2 > v1);
            assertEquals(Status.Code.FAILED_PRECONDITION, assertThrows(StatusRuntimeException.class, () -> kv.update(
                    UpdateRequest.newBuilder().setKey(b("x:ver")).setValue(b("2")).setExpectedVersion(v1).build())).getStatus().getCode());
            j.expire("x:ver", 1000); // in place (TTL only): caught by the engine's hook
            long v3 = kv.get(GetRequest.newBuilder().setKey(b("x:ver")).build()).getKv().getVersion();
            assertTrue(v3 > v2);
            j.del("x:ver");
            j.set("x:ver", "again");
            assertTrue(kv.get(GetRequest.newBuilder().setKey(b("x:ver")).build()).getKv().getVersion() > v3);
        }
    }

    @Test
    void respDeleteDropsTheVersionStamp() {
        KeyVersions versions = server.grpc.store.versions();
        try (Jedis j = server.jedis()) {
            kv.put(PutRequest.newBuilder().setKey(b("x:stamp")).setValue(b("v")).build());
            assertTrue(versions.has("x:stamp".getBytes()));
            j.del("x:stamp");
            assertTrue(!versions.has("x:stamp".getBytes()), "a key deleted through RESP keeps no stamp");
        }
    }

    @Test
    void grpcWriteFailsARespWatch() {
        try (Jedis j = server.jedis()) {
            j.set("x:watched", "a");
            j.watch("x:watched");
            kv.put(PutRequest.newBuilder().setKey(b("x:watched")).setValue(b("b")).build());
            Transaction t = j.multi();
            t.set("x:watched", "c");
            assertNull(t.exec());
            assertEquals("b", j.get("x:watched"));
        }
    }

    @Test
    void watchStreamSeesGrpcRespAndExpiry() throws Exception {
        BlockingQueue<WatchResponse> got = new LinkedBlockingQueue<>();
        CompletableFuture<Void> ended = new CompletableFuture<>();
        server.async().watch(WatchRequest.newBuilder().setPrefix(b("w:")).build(), new StreamObserver<>() {
            public void onNext(WatchResponse r) { // one event per response: the stream may batch those that came together
                if (r.getEventsCount() <= 1) {
                    got.add(r);
                    return;
                }
                for (Event e : r.getEventsList()) {
                    got.add(WatchResponse.newBuilder().setHeader(r.getHeader()).addEvents(e).build());
                }
            }

            public void onError(Throwable t) {
                ended.completeExceptionally(t);
            }

            public void onCompleted() {
                ended.complete(null);
            }
        });
        assertTrue(got.poll(5, TimeUnit.SECONDS).getCreated());
        kv.put(PutRequest.newBuilder().setKey(b("w:1")).setValue(b("g")).build());
        Event e = next(got);
        assertEquals(Event.Type.PUT, e.getType());
        assertEquals("w:1", e.getKv().getKey().toStringUtf8());
        assertEquals("g", e.getKv().getValue().toStringUtf8());
        kv.put(PutRequest.newBuilder().setKey(b("other")).setValue(b("not watched")).build());
        try (Jedis j = server.jedis()) {
            j.set("w:2", "r");
            e = next(got);
            assertEquals(Event.Type.PUT, e.getType());
            assertEquals("w:2", e.getKv().getKey().toStringUtf8());
            assertEquals("r", e.getKv().getValue().toStringUtf8());
            j.del("w:2");
            e = next(got);
            assertEquals(Event.Type.DELETE, e.getType());
        }
        kv.delete(DeleteRequest.newBuilder().setKey(b("w:1")).build());
        assertEquals(Event.Type.DELETE, next(got).getType());
        kv.put(PutRequest.newBuilder().setKey(b("w:3")).setValue(b("short")).setTtlMs(20).build());
        assertEquals(Event.Type.PUT, next(got).getType());
        Thread.sleep(40);
        assertThrows(StatusRuntimeException.class, () -> kv.get(GetRequest.newBuilder().setKey(b("w:3")).build()));
        e = next(got);
        assertEquals(Event.Type.EXPIRE, e.getType());
        assertEquals("w:3", e.getKv().getKey().toStringUtf8());
    }

    @Test
    void keyWatchSeesOnlyItsKeyAndFlushes() throws Exception {
        BlockingQueue<WatchResponse> got = new LinkedBlockingQueue<>();
        server.async().watch(WatchRequest.newBuilder().setKey(b("wk")).build(), new StreamObserver<>() {
            public void onNext(WatchResponse r) {
                got.add(r);
            }

            public void onError(Throwable t) {
            }

            public void onCompleted() {
            }
        });
        assertTrue(got.poll(5, TimeUnit.SECONDS).getCreated());
        kv.put(PutRequest.newBuilder().setKey(b("wk2")).setValue(b("no")).build());
        kv.put(PutRequest.newBuilder().setKey(b("wk")).setValue(b("yes")).build());
        Event e = next(got);
        assertEquals("wk", e.getKv().getKey().toStringUtf8());
        assertEquals("yes", e.getKv().getValue().toStringUtf8());
        try (Jedis j = server.jedis()) {
            j.flushDB();
        }
        assertEquals(Event.Type.DELETE, next(got).getType());
    }

    private static Event next(BlockingQueue<WatchResponse> q) throws InterruptedException {
        WatchResponse r = q.poll(5, TimeUnit.SECONDS);
        assertNotNull(r, "no event");
        assertEquals(1, r.getEventsCount(), r.toString());
        return r.getEvents(0);
    }

    @Test
    void watchEndsAtItsDeadline() {
        // 200 ms failed now and then on a loaded machine before the stream's first response came
        Iterator<WatchResponse> it = kv.withDeadlineAfter(2, TimeUnit.SECONDS)
                .watch(WatchRequest.newBuilder().setKey(b("w:deadline")).build());
        assertTrue(it.next().getCreated());
        assertEquals(Status.Code.DEADLINE_EXCEEDED, assertThrows(StatusRuntimeException.class, it::next).getStatus().getCode());
    }

    @Test
    void grpcWritesPublishKeyspaceNotifications() throws Exception {
        try (Jedis sub = server.jedis(); Jedis j = server.jedis()) {
            j.configSet("notify-keyspace-events", "KEA");
            BlockingQueue<String> events = new LinkedBlockingQueue<>();
            var listener = new redis.clients.jedis.JedisPubSub() {
                @Override
                public void onMessage(String channel, String message) {
                    events.add(channel + " " + message);
                }

                @Override
                public void onSubscribe(String channel, int n) {
                    kv.put(PutRequest.newBuilder().setKey(b("n:1")).setValue(b("v")).build());
                    kv.delete(DeleteRequest.newBuilder().setKey(b("n:1")).build());
                }
            };
            Thread t = new Thread(() -> sub.subscribe(listener, "__keyspace@0__:n:1"));
            t.start();
            assertEquals("__keyspace@0__:n:1 set", events.poll(5, TimeUnit.SECONDS));
            assertEquals("__keyspace@0__:n:1 del", events.poll(5, TimeUnit.SECONDS));
            listener.unsubscribe();
            t.join(5000);
            j.configSet("notify-keyspace-events", "");
        }
    }

    @Test
    void healthReflectionAndAuthentication() throws Exception {
        // each call its own deadline: one 5 s deadline from the stub's creation also covered connecting, which
        // took longer on a loaded machine (DEADLINE_EXCEEDED while connecting)
        var health = HealthGrpc.newBlockingStub(server.channel).withInterceptors(GrpcTestServer.PER_CALL_DEADLINE);
        assertEquals(HealthCheckResponse.ServingStatus.SERVING,
                health.check(HealthCheckRequest.newBuilder().setService("spinel.kv.v1.KV").build()).getStatus());

        CompletableFuture<ServerReflectionResponse> listed = new CompletableFuture<>();
        var in = ServerReflectionGrpc.newStub(server.channel).withInterceptors(GrpcTestServer.PER_CALL_DEADLINE).serverReflectionInfo(new StreamObserver<>() {
            public void onNext(ServerReflectionResponse r) {
                listed.complete(r);
            }

            public void onError(Throwable t) {
                listed.completeExceptionally(t);
            }

            public void onCompleted() {
            }
        });
        in.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
        assertTrue(listed.get(30, TimeUnit.SECONDS).getListServicesResponse().getServiceList().stream()
                .anyMatch(s -> s.getName().equals("spinel.kv.v1.KV")));
        in.onCompleted();

        try (Jedis j = server.jedis()) {
            j.configSet("requirepass", "s3cret");
            try {
                assertEquals(Status.Code.UNAUTHENTICATED, assertThrows(StatusRuntimeException.class,
                        () -> kv.get(GetRequest.newBuilder().setKey(b("a")).build())).getStatus().getCode());
                Metadata bad = new Metadata();
                bad.put(AuthInterceptor.AUTHORIZATION, "Bearer wrong");
                assertEquals(Status.Code.UNAUTHENTICATED, assertThrows(StatusRuntimeException.class,
                        () -> kv.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(bad))
                                .get(GetRequest.newBuilder().setKey(b("a")).build())).getStatus().getCode());
                Metadata good = new Metadata();
                good.put(AuthInterceptor.AUTHORIZATION, "Bearer s3cret");
                kv.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(good))
                        .put(PutRequest.newBuilder().setKey(b("a")).setValue(b("ok")).build());
                assertEquals(HealthCheckResponse.ServingStatus.SERVING,
                        health.check(HealthCheckRequest.newBuilder().build()).getStatus(), "health stays open");
            } finally {
                j.auth("s3cret");
                j.configSet("requirepass", "");
            }
        }
    }
}
