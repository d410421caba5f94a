package dev.spinel.grpc;

import dev.spinel.grpc.v1.BatchResponse;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.grpc.v1.TxnRequest;
import dev.spinel.grpc.v1.UpdateRequest;
import dev.spinel.server.engine.EmbeddedClient;
import dev.spinel.server.engine.EmbeddedClient.Done;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisCheckAof;
import dev.spinel.server.testing.RedisServerProcess;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

import static dev.spinel.grpc.Ops.b;
import static dev.spinel.grpc.Ops.create;
import static dev.spinel.grpc.Ops.delete;
import static dev.spinel.grpc.Ops.deleteOp;
import static dev.spinel.grpc.Ops.exists;
import static dev.spinel.grpc.Ops.get;
import static dev.spinel.grpc.Ops.op;
import static dev.spinel.grpc.Ops.put;
import static dev.spinel.grpc.Ops.putOp;
import static dev.spinel.grpc.Ops.txn;
import static dev.spinel.grpc.Ops.update;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gRPC writes take the engine's write path: logged as RESP commands that redis-server replays, refused
 * as RESP writes are (OOM, MISCONF), seen by WATCH, keyspace notifications and MONITOR, and versions
 * that do not repeat across a restart.
 */
class GrpcWritePathTest {
    @TempDir
    Path dir;

    private GrpcTestServer logging(Path d) throws Exception {
        return new GrpcTestServer("dir", d.toString(), "appendonly", "yes", "appendfsync", "always");
    }

    /** What both servers must show after replaying the log (GET and whether a TTL is set, per key). */
    private static String state(RawClient c) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (String k : new String[] {"p1", "p2", "c1", "upd", "gone", "t1", "t2", "b1", "b2"}) {
            String v = new String(c.call("GET", k), StandardCharsets.ISO_8859_1).trim();
            long pttl = Long.parseLong(new String(c.call("PTTL", k), StandardCharsets.ISO_8859_1).trim().substring(1));
            sb.append(k).append('=').append(v.replace("\r\n", " ")).append(pttl > 0 ? " ttl" : pttl == -1 ? "" : " -").append('\n');
        }
        return sb.toString();
    }

    /**
     * A writing unit's position is the one of the block the log appended for it, so the reply waits for the
     * fsync: the position was once read before the block was appended (0), and Batch replies left early.
     */
    @Test
    @Timeout(60)
    void aWritingUnitWaitsForItsOwnLogPosition() throws Exception {
        try (GrpcTestServer s = logging(dir)) {
            EmbeddedClient client = s.spinel.engine().embeddedClient("test");
            byte[] key = "unit".getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < 3; i++) {
                Done<Void> d = client.run(0, List.of(key), EmbeddedClient.Access.GROW, keys -> {
                    keys.call("SET".getBytes(StandardCharsets.UTF_8), key, "v".getBytes(StandardCharsets.UTF_8));
                    return null;
                });
                assertTrue(d.logPosition() > 0, "a logged write has a position: " + d.logPosition());
            }
            Done<Void> read = client.run(0, List.of(key), EmbeddedClient.Access.GROW, keys -> null);
            assertEquals(0, read.logPosition(), "nothing written, nothing to wait for");
        }
    }

    @Test
    @Timeout(120)
    void grpcWritesAreLoggedAsCommandsRedisReplays() throws Exception {
        String expected;
        try (GrpcTestServer s = logging(dir); Jedis j = s.jedis(); RawClient c = new RawClient(s.spinel.port())) {
            KVGrpc.KVBlockingStub kv = s.blocking();
            j.set("upd", "old");
            j.set("gone", "1");
            kv.put(put("p1", "v1"));
            kv.put(put("p2", "v2", 100_000));
            kv.create(create("c1", "created"));
            kv.update(update("upd", "new"));
            kv.delete(delete("gone"));
            assertTrue(kv.txn(txn(exists("upd"), putOp(put("t1", "x")), putOp(put("t2", "y", 100_000)), deleteOp("p1")))
                    .getSucceeded());
            BatchResponse r = Ops.batch(s.async(), op(put("b1", "z")), op(put("b2", "w", 100_000)));
            assertEquals(2, r.getResultsCount());
            expected = state(c);
            assertEquals("p1=$-1 -\np2=$2 v2 ttl\nc1=$7 created\nupd=$3 new\ngone=$-1 -\nt1=$1 x\nt2=$1 y ttl\n"
                    + "b1=$1 z\nb2=$1 w ttl\n", expected);
        }
        Path aofDir = dir.resolve("appendonlydir");
        String log;
        try (Stream<Path> files = Files.list(aofDir)) {
            StringBuilder all = new StringBuilder();
            for (Path p : files.filter(p -> p.toString().endsWith(".incr.aof")).sorted().toList()) {
                all.append(Files.readString(p, StandardCharsets.ISO_8859_1));
            }
            log = all.toString();
        }
        // The Txn is one MULTI/EXEC block (replayed atomically); expiries are absolute.
        assertTrue(log.contains("*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$2\r\nt1\r\n$1\r\nx\r\n*5\r\n$3\r\nSET\r\n$2\r\nt2\r\n"
                + "$1\r\ny\r\n$4\r\nPXAT\r\n"), log);
        assertTrue(log.contains("*2\r\n$3\r\nDEL\r\n$2\r\np1\r\n*1\r\n$4\r\nEXEC\r\n"), log);
        assertTrue(log.contains("*4\r\n$3\r\nSET\r\n$3\r\nupd\r\n$3\r\nnew\r\n$7\r\nKEEPTTL\r\n"), log);
        // A Batch message's run of Puts is one unit: one MULTI/EXEC block, not a bare SET per Put.
        assertTrue(log.contains("*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$2\r\nb1\r\n$1\r\nz\r\n*5\r\n$3\r\nSET\r\n"
                + "$2\r\nb2\r\n$1\r\nw\r\n$4\r\nPXAT\r\n"), log);

        RedisCheckAof.assertValid(aofDir);

        try (RedisServerProcess redis = RedisServerProcess.start("--dir", dir.toString(), "--appendonly", "yes");
             RawClient c = new RawClient(redis.port())) {
            awaitLoaded(c);
            assertEquals(expected, state(c), "redis-server loading Spinel's log");
        }
        try (GrpcTestServer s = logging(dir); RawClient c = new RawClient(s.spinel.port())) {
            assertEquals(expected, state(c), "Spinel restarted from its log");
        }
    }

    static void awaitLoaded(RawClient c) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (new String(c.call("DBSIZE"), StandardCharsets.ISO_8859_1).startsWith("-LOADING") && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
    }

    @Test
    void overMaxmemoryGrpcWritesAreRefusedAsRespOnes() throws Exception {
        try (GrpcTestServer s = new GrpcTestServer(); Jedis j = s.jedis(); RawClient c = new RawClient(s.spinel.port())) {
            KVGrpc.KVBlockingStub kv = s.blocking();
            j.set("old", "1");
            j.configSet("maxmemory-policy", "noeviction");
            j.configSet("maxmemory", "1");
            String resp = new String(c.call("SET", "viaresp", "1"), StandardCharsets.ISO_8859_1);
            assertTrue(resp.startsWith("-OOM "), resp);
            String text = resp.substring(1).trim();

            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> kv.put(put("k", "v")));
            assertEquals(Status.Code.RESOURCE_EXHAUSTED, e.getStatus().getCode());
            assertEquals(text, e.getStatus().getDescription());
            assertEquals(Status.Code.RESOURCE_EXHAUSTED, assertThrows(StatusRuntimeException.class,
                    () -> kv.create(create("k", "v"))).getStatus().getCode());
            assertEquals(Status.Code.RESOURCE_EXHAUSTED, assertThrows(StatusRuntimeException.class,
                    () -> kv.update(update("old", "v"))).getStatus().getCode());
            assertEquals(Status.Code.RESOURCE_EXHAUSTED, assertThrows(StatusRuntimeException.class,
                    () -> kv.txn(txn(exists("old"), putOp(put("k", "v"))))).getStatus().getCode());
            BatchResponse r = Ops.batch(s.async(), op(put("k", "v")));
            assertEquals(Status.Code.RESOURCE_EXHAUSTED.value(), r.getResults(0).getCode());
            assertEquals(text, r.getResults(0).getMessage());
            assertFalse(j.exists("k"), "nothing stored");
            assertEquals("1", j.get("old"), "nothing changed");
            // As DEL over RESP: a delete frees memory and is allowed.
            kv.delete(delete("old"));
            assertFalse(j.exists("old"));
            j.configSet("maxmemory", "0");
        }
    }

    @Test
    @Timeout(60)
    void whilePersistenceFailsGrpcWritesAreRefusedWithMisconf() throws Exception {
        Path gone = Files.createDirectories(dir.resolve("gone"));
        try (GrpcTestServer s = new GrpcTestServer("dir", gone.toString(), "save", "1000 1"); Jedis j = s.jedis();
             RawClient c = new RawClient(s.spinel.port())) {
            KVGrpc.KVBlockingStub kv = s.blocking();
            j.set("old", "1");
            Files.delete(gone); // the next save fails: writes are refused until one succeeds
            assertEquals("+Background saving started\r\n", c.callString("BGSAVE"));
            long deadline = System.currentTimeMillis() + 20_000;
            while (s.spinel.persistence().bgsaveInProgress() && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            String resp = new String(c.call("SET", "viaresp", "1"), StandardCharsets.ISO_8859_1);
            assertTrue(resp.startsWith("-MISCONF "), resp);
            String text = resp.substring(1).trim();

            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> kv.put(put("k", "v")));
            assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
            assertEquals(text, e.getStatus().getDescription());
            assertEquals(Status.Code.UNAVAILABLE, assertThrows(StatusRuntimeException.class,
                    () -> kv.delete(delete("old"))).getStatus().getCode());
            assertEquals("1", kv.get(get("old")).getKv().getValue().toStringUtf8(), "reads still work");
            assertFalse(j.exists("k"));
            assertEquals("1", j.get("old"));
        }
    }

    @Test
    @Timeout(60)
    void respClientsSeeAGrpcWriteAsTheCommandItRuns() throws Exception {
        try (GrpcTestServer s = new GrpcTestServer(); Jedis j = s.jedis()) {
            KVGrpc.KVBlockingStub kv = s.blocking();
            j.configSet("notify-keyspace-events", "KEA");
            try (RawClient monitor = client(s); RawClient sub = client(s)) {
                assertEquals("+OK\r\n", monitor.callString("MONITOR"));
                sub.call("PSUBSCRIBE", "__keyspace@0__:seen");

                // WATCH: a gRPC Put of a watched key makes the EXEC fail.
                j.set("seen", "0");
                j.watch("seen");
                kv.put(put("seen", "fromgrpc", 60_000));
                Transaction t = j.multi();
                t.set("seen", "resp");
                assertNull(t.exec(), "EXEC after a gRPC write of a watched key");
                assertEquals("fromgrpc", j.get("seen"));

                // Keyspace notifications: RESP's SET, then gRPC's Put as SET ... PX would send them.
                for (String event : new String[] {"set", "set", "expire"}) {
                    String got = new String(sub.readReply(), StandardCharsets.ISO_8859_1);
                    assertTrue(got.endsWith("$" + event.length() + "\r\n" + event + "\r\n"), got);
                }

                // MONITOR shows the command gRPC ran, from its internal client.
                String line = "";
                long deadline = System.currentTimeMillis() + 5_000;
                while (!line.contains("[0 grpc]") && System.currentTimeMillis() < deadline) {
                    line = new String(monitor.readReply(), StandardCharsets.ISO_8859_1);
                }
                assertTrue(line.contains("[0 grpc] \"SET\" \"seen\" \"fromgrpc\" \"PXAT\""), line);
            }
        }
    }

    private static RawClient client(GrpcTestServer s) throws Exception {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", s.spinel.port()));
        socket.setSoTimeout(5_000);
        return new RawClient(socket);
    }

    @Test
    @Timeout(60)
    void aVersionReadBeforeARestartNeverMatchesAfterIt() throws Exception {
        long before;
        try (GrpcTestServer s = logging(dir); Jedis j = s.jedis()) {
            for (int i = 0; i < 3; i++) {
                s.blocking().put(put("other" + i, "x"));
            }
            j.set("aba", "a");
            before = s.blocking().get(get("aba")).getKv().getVersion();
        }
        try (GrpcTestServer s = logging(dir)) {
            KVGrpc.KVBlockingStub kv = s.blocking();
            assertEquals("a", kv.get(get("aba")).getKv().getValue().toStringUtf8());
            // Someone else rewrites the key after the restart, again and again: a compare-and-set with the
            // version read before the restart must fail every time (it is a different value).
            for (int i = 0; i < 10; i++) {
                long v = kv.put(put("aba", "b" + i)).getVersion();
                StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> kv.update(UpdateRequest.newBuilder()
                        .setKey(b("aba")).setValue(b("stale")).setExpectedVersion(before).build()));
                assertEquals(Status.Code.FAILED_PRECONDITION, e.getStatus().getCode());
                assertTrue(v > before, v + " after the restart, " + before + " before");
            }
            assertEquals("b9", kv.get(get("aba")).getKv().getValue().toStringUtf8());
        }
    }

    /**
     * A Txn is all or nothing even when a put's TTL is at the limit: the TTL was checked with the time of the
     * validation and computed again with the time the ops ran, so a Txn whose stripes were busy in between failed
     * with INVALID_ARGUMENT after its first put had been applied (and logged).
     */
    @Test
    @Timeout(60)
    void aTxnPutNearTheTtlLimitNeverLeavesItHalfDone() throws Exception {
        try (GrpcTestServer s = new GrpcTestServer(); Jedis j = s.jedis()) {
            byte[] a = "a".getBytes(StandardCharsets.UTF_8);
            s.blocking().put(put("warm", "x")); // the channel is connected: the Txn below is validated at once
            CountDownLatch holding = new CountDownLatch(1);
            Thread busy = new Thread(() -> s.grpc.store.client().run(KvStore.DB, List.of(a), EmbeddedClient.Access.READ, k -> {
                holding.countDown();
                try {
                    Thread.sleep(4000); // the Txn's stripes are busy: it waits between validation and its ops
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return null;
            }));
            busy.start();
            holding.await();
            long ttl = Long.MAX_VALUE - (System.currentTimeMillis() + 2000); // valid for two seconds from now
            var r = TxnRequest.newBuilder().addSuccessOps(putOp(put("a", "1")))
                    .addSuccessOps(putOp(put("b", "2", ttl))).build();
            try {
                assertTrue(s.blocking().txn(r).getSucceeded());
                assertEquals("1", j.get("a"));
                assertEquals("2", j.get("b"));
            } catch (StatusRuntimeException e) {
                assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), e.toString());
                assertFalse(j.exists("a"), "a failed Txn changed nothing");
            }
            busy.join();
        }
    }
}
