package dev.spinel.grpc;

import dev.spinel.grpc.v1.BatchOp;
import dev.spinel.grpc.v1.BatchResponse;
import dev.spinel.grpc.v1.Compare;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.grpc.v1.KeyValue;
import dev.spinel.grpc.v1.RequestOp;
import dev.spinel.grpc.v1.ScanRequest;
import dev.spinel.grpc.v1.ScanResponse;
import dev.spinel.grpc.v1.TxnRequest;
import dev.spinel.grpc.v1.WatchRequest;
import dev.spinel.grpc.v1.WatchResponse;
import io.grpc.ClientInterceptor;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static dev.spinel.grpc.Ops.b;
import static dev.spinel.grpc.Ops.delete;
import static dev.spinel.grpc.Ops.get;
import static dev.spinel.grpc.Ops.op;
import static dev.spinel.grpc.Ops.put;
import static dev.spinel.grpc.Ops.putOp;
import static dev.spinel.grpc.Ops.update;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gRPC calls authenticate as ACL users (spinel-username + password metadata) and run with that user's
 * command and key permissions, as a RESP client after AUTH: denials are PERMISSION_DENIED with Redis's NOPERM
 * texts and appear in ACL LOG; a wrong password, an unknown or a disabled user is UNAUTHENTICATED.
 */
class GrpcAclTest {
    private static KVGrpc.KVBlockingStub as(KVGrpc.KVBlockingStub kv, String user, String password) {
        return kv.withInterceptors(credentials(user, password));
    }

    private static ClientInterceptor credentials(String user, String password) {
        Metadata m = new Metadata();
        if (user != null) {
            m.put(AuthInterceptor.USERNAME, user);
        }
        m.put(AuthInterceptor.PASSWORD, password);
        return MetadataUtils.newAttachHeadersInterceptor(m);
    }

    private static final String NOPERM_KEY = "NOPERM this user has no permissions to access one of the keys used as arguments";

    private static Status.Code code(Runnable call) {
        return assertThrows(StatusRuntimeException.class, call::run).getStatus().getCode();
    }

    private static String description(Runnable call) {
        return assertThrows(StatusRuntimeException.class, call::run).getStatus().getDescription();
    }

    @Test
    @Timeout(60)
    void callsRunWithTheirUsersPermissions() throws Exception {
        try (GrpcTestServer s = new GrpcTestServer(); Jedis j = s.jedis()) {
            KVGrpc.KVBlockingStub kv = s.blocking();
            j.set("r1", "one");
            j.set("w1", "two");
            j.aclSetUser("reader", "on", ">rpw", "~r*", "+get", "+scan");
            j.aclSetUser("writer", "on", ">wpw", "~w*", "+@all");
            KVGrpc.KVBlockingStub reader = as(kv, "reader", "rpw");
            KVGrpc.KVBlockingStub writer = as(kv, "writer", "wpw");

            assertEquals("one", reader.get(get("r1")).getKv().getValue().toStringUtf8());
            assertEquals("NOPERM this user has no permissions to run the 'set' command",
                    description(() -> reader.put(put("r1", "x"))));
            assertEquals("NOPERM this user has no permissions to run the 'del' command",
                    description(() -> reader.delete(delete("r1"))));
            assertEquals("NOPERM this user has no permissions to access one of the keys used as arguments",
                    description(() -> reader.get(get("w1"))));
            assertEquals(Status.Code.PERMISSION_DENIED, code(() -> reader.get(get("w1"))));

            writer.put(put("w2", "three"));
            assertEquals("three", j.get("w2"));
            assertEquals(Status.Code.PERMISSION_DENIED, code(() -> writer.put(put("r2", "x"))));
            assertEquals("one", j.get("r1"), "nothing written by a denied call");

            List<?> log = j.aclLog();
            assertTrue(log.size() >= 3, "denials are in ACL LOG: " + log);

            assertEquals(Status.Code.UNAUTHENTICATED, code(() -> as(kv, "reader", "wrong").get(get("r1"))));
            assertEquals(Status.Code.UNAUTHENTICATED, code(() -> as(kv, "nobody", "x").get(get("r1"))));
            j.aclSetUser("reader", "off");
            assertEquals(Status.Code.UNAUTHENTICATED, code(() -> reader.get(get("r1"))), "a disabled user, at once");
            // the default user needs no password while it has none
            assertEquals("one", kv.get(get("r1")).getKv().getValue().toStringUtf8());
            j.configSet("requirepass", "dpw");
            try {
                assertEquals(Status.Code.UNAUTHENTICATED, code(() -> kv.get(get("r1"))));
                assertEquals("one", as(kv, null, "dpw").get(get("r1")).getKv().getValue().toStringUtf8());
                assertEquals("one", as(kv, "default", "dpw").get(get("r1")).getKv().getValue().toStringUtf8());
            } finally {
                j.auth("dpw");
                j.configSet("requirepass", "");
            }
        }
    }

    private static Compare valueIs(String key, String value) {
        return Compare.newBuilder().setKey(b(key)).setTarget(Compare.Target.VALUE).setResult(Compare.Result.EQUAL)
                .setValue(b(value)).build();
    }

    private static RequestOp getOp(String key) {
        return RequestOp.newBuilder().setGet(get(key)).build();
    }

    /**
     * %R~ and %W~ patterns as Redis applies them to the equivalent commands: a Get needs read, a Put/Delete write;
     * a Txn checks each compare (read) and each op (its own command) on its own key, in both branches, so a
     * compare on a read-only key may guard a put on a write-only one; a Batch checks op by op.
     */
    @Test
    @Timeout(60)
    void readAndWritePatternsAreCheckedPerKeyAndOperation() throws Exception {
        try (GrpcTestServer s = new GrpcTestServer(); Jedis j = s.jedis()) {
            j.set("r1", "one");
            j.set("w1", "two");
            j.aclSetUser("rw", "on", ">pw", "%R~r*", "%W~w*", "+@all");
            KVGrpc.KVBlockingStub kv = as(s.blocking(), "rw", "pw");

            assertEquals("one", kv.get(get("r1")).getKv().getValue().toStringUtf8());
            assertEquals(NOPERM_KEY, description(() -> kv.put(put("r1", "x"))), "%R~ does not allow SET");
            assertEquals(NOPERM_KEY, description(() -> kv.delete(delete("r1"))), "%R~ does not allow DEL");
            assertEquals(NOPERM_KEY, description(() -> kv.get(get("w1"))), "%W~ does not allow GET");
            kv.put(put("w2", "x"));
            kv.update(update("w2", "y"));
            assertEquals("y", j.get("w2"));
            var versioned = update("w2", "z").toBuilder().setExpectedVersion(1).build();
            assertEquals(NOPERM_KEY, description(() -> kv.update(versioned)), "an expected version reads the key");
            kv.delete(delete("w2"));
            assertFalse(j.exists("w2"));

            // a compare reads its key only; the put writes its own
            TxnRequest guarded = TxnRequest.newBuilder().addCompares(valueIs("r1", "one"))
                    .addSuccessOps(putOp(put("w3", "guarded"))).build();
            assertTrue(kv.txn(guarded).getSucceeded());
            assertEquals("guarded", j.get("w3"));
            TxnRequest readsW = TxnRequest.newBuilder().addCompares(valueIs("w1", "two"))
                    .addSuccessOps(putOp(put("w3", "x"))).build();
            assertEquals(NOPERM_KEY, description(() -> kv.txn(readsW)), "a compare needs read permission");
            TxnRequest getsW = TxnRequest.newBuilder().addSuccessOps(getOp("w1")).build();
            assertEquals(NOPERM_KEY, description(() -> kv.txn(getsW)));
            TxnRequest failureWritesR = TxnRequest.newBuilder().addCompares(valueIs("r1", "one"))
                    .addSuccessOps(putOp(put("w3", "x"))).addFailureOps(putOp(put("r1", "x"))).build();
            assertEquals(NOPERM_KEY, description(() -> kv.txn(failureWritesR)), "both branches are checked");
            assertEquals("guarded", j.get("w3"), "nothing ran");
            assertEquals("one", j.get("r1"));

            BatchResponse r = Ops.batch(s.async().withInterceptors(credentials("rw", "pw")),
                    BatchOp.newBuilder().setGet(get("r1")).build(), BatchOp.newBuilder().setGet(get("w1")).build(),
                    op(put("r1", "x")), op(put("w4", "x")));
            assertEquals(0, r.getResults(0).getCode());
            assertEquals(Status.Code.PERMISSION_DENIED.value(), r.getResults(1).getCode());
            assertEquals(Status.Code.PERMISSION_DENIED.value(), r.getResults(2).getCode());
            assertEquals(0, r.getResults(3).getCode());
            assertEquals("one", j.get("r1"));
        }
    }

    /** The messages of a Scan until it ends; its error status, if any, in {@code error[0]}. */
    private static List<KeyValue> scan(KVGrpc.KVBlockingStub kv, ScanRequest r, Status[] error) {
        List<KeyValue> got = new ArrayList<>();
        try {
            Iterator<ScanResponse> it = kv.scan(r);
            while (it.hasNext()) {
                got.addAll(it.next().getKvsList());
            }
        } catch (StatusRuntimeException e) {
            error[0] = e.getStatus();
        }
        return got;
    }

    /**
     * A Scan is SCAN plus a GET of each key it returns: keys within the user's read patterns come back, and the
     * first key outside them ends the stream with PERMISSION_DENIED (logged in ACL LOG) before it is revealed,
     * with or without values; a prefix the patterns cover needs no check per key.
     */
    @Test
    @Timeout(60)
    void scanNeverRevealsAKeyTheUserMayNotRead() throws Exception {
        try (GrpcTestServer s = new GrpcTestServer(); Jedis j = s.jedis()) {
            for (int i = 0; i < 300; i++) { // several SCAN steps of each kind
                j.set("r" + i, "v");
                j.set("w" + i, "secret");
            }
            j.aclSetUser("reader", "on", ">pw", "~r*", "+get", "+scan");
            j.aclSetUser("noscan", "on", ">pw", "~*", "+get");
            KVGrpc.KVBlockingStub kv = as(s.blocking(), "reader", "pw");
            j.aclLogReset();

            Status[] error = new Status[1];
            List<KeyValue> got = scan(kv, ScanRequest.newBuilder().setPrefix(b("r")).build(), error);
            assertEquals(null, error[0]);
            assertEquals(300, got.size());
            got = scan(kv, ScanRequest.newBuilder().setRangeStart(b("r")).setRangeEnd(b("s")).build(), error);
            assertEquals(null, error[0], "a range within the patterns, checked key by key");
            assertEquals(300, got.size());

            for (boolean keysOnly : new boolean[] {false, true}) {
                for (ScanRequest r : List.of(ScanRequest.newBuilder().setKeysOnly(keysOnly).build(),
                        ScanRequest.newBuilder().setPrefix(b("w")).setKeysOnly(keysOnly).build(),
                        ScanRequest.newBuilder().setRangeStart(b("a")).setRangeEnd(b("z")).setKeysOnly(keysOnly).build())) {
                    error[0] = null;
                    got = scan(kv, r, error);
                    assertEquals(Status.Code.PERMISSION_DENIED, error[0] == null ? null : error[0].getCode(), r.toString());
                    assertEquals(NOPERM_KEY, error[0].getDescription());
                    for (KeyValue kvs : got) {
                        assertTrue(kvs.getKey().toStringUtf8().startsWith("r"), "revealed " + kvs.getKey().toStringUtf8());
                    }
                }
            }
            assertTrue(j.aclLog().stream().anyMatch(e -> "key".equals(e.getReason()) && e.getObject().startsWith("w")),
                    "the refused key is logged as GET's: " + j.aclLog());
            error[0] = null;
            scan(as(s.blocking(), "noscan", "pw"), ScanRequest.newBuilder().setPrefix(b("r")).build(), error);
            assertEquals("NOPERM this user has no permissions to run the 'scan' command", error[0].getDescription());
        }
    }

    /**
     * An open Watch keeps only the permissions its user still has: after ACL SETUSER narrows the key patterns or
     * takes GET (or SCAN, from a prefix's Watch) away, or ACL DELUSER / SETUSER off / ACL LOAD removes the user, the stream ends with
     * PERMISSION_DENIED (as Redis disconnects a subscriber whose channels were revoked, and a deleted user's
     * clients); a change that still allows it leaves it running.
     */
    @Test
    @Timeout(60)
    void watchEndsWhenTheAclRevokesIt() throws Exception {
        try (GrpcTestServer s = new GrpcTestServer(); Jedis j = s.jedis()) {
            List<List<String>> revocations = List.of(
                    List.of("ACL", "SETUSER", "watcher", "resetkeys", "~x*"),
                    List.of("ACL", "SETUSER", "watcher", "-get"),
                    List.of("ACL", "SETUSER", "watcher", "-scan"),
                    List.of("ACL", "SETUSER", "watcher", "off"),
                    List.of("ACL", "DELUSER", "watcher"));
            for (List<String> revoke : revocations) {
                for (boolean prefix : new boolean[] {false, true}) {
                    j.aclSetUser("watcher", "reset", "on", ">pw", "~r*", "+get", "+scan");
                    KVGrpc.KVBlockingStub kv = as(s.blocking(), "watcher", "pw");
                    WatchRequest r = prefix ? WatchRequest.newBuilder().setPrefix(b("r")).build()
                            : WatchRequest.newBuilder().setKey(b("r1")).build();
                    Context.CancellableContext call = Context.current().withCancellation();
                    try {
                        Iterator<WatchResponse> it = call.call(() -> kv.watch(r));
                        assertTrue(call.call(() -> it.next().getCreated()));
                        j.aclSetUser("watcher", "+set"); // still allowed: the stream goes on
                        j.set("r1", "a");
                        assertEquals("a", call.call(() -> it.next().getEvents(0).getKv().getValue().toStringUtf8()));
                        j.sendCommand(() -> revoke.get(0).getBytes(), revoke.subList(1, revoke.size()).toArray(String[]::new));
                        j.set("r1", "b"); // a change it must not see
                        if (!prefix && revoke.contains("-scan")) { // a key's Watch needs only GET: it goes on
                            assertEquals("b", call.call(() -> it.next().getEvents(0).getKv().getValue().toStringUtf8()));
                            continue;
                        }
                        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> call.call(() -> {
                            while (it.hasNext()) {
                                WatchResponse m = it.next();
                                for (var ev : m.getEventsList()) {
                                    assertFalse(ev.getKv().getValue().toStringUtf8().equals("b"), "saw a change after " + revoke);
                                }
                            }
                            return null;
                        }), revoke + (prefix ? " prefix" : " key"));
                        assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode(), revoke.toString());
                        assertTrue(e.getStatus().getDescription().startsWith("NOPERM"), e.getStatus().getDescription());
                    } finally {
                        call.cancel(null);
                    }
                }
            }
        }
    }

    /**
     * An open Scan reads its user's permissions at each step: once the user is deleted, or its patterns narrowed,
     * the rest of the scan ends with PERMISSION_DENIED instead of revealing more keys.
     */
    @Test
    @Timeout(60)
    void scanEndsWhenTheAclRevokesIt() throws Exception {
        try (GrpcTestServer s = new GrpcTestServer(); Jedis j = s.jedis()) {
            String value = "v".repeat(8192);
            var load = j.pipelined();
            for (int i = 0; i < 1000; i++) { // 8 MB: flow control holds the server after a few steps
                load.set("r" + i, value);
            }
            load.sync();
            for (List<String> revoke : List.of(List.of("DELUSER", "scanner"), List.of("SETUSER", "scanner", "resetkeys", "~x*"))) {
                j.aclSetUser("scanner", "reset", "on", ">pw", "~r*", "+get", "+scan");
                KVGrpc.KVBlockingStub kv = as(s.blocking(), "scanner", "pw");
                Context.CancellableContext call = Context.current().withCancellation();
                try {
                    Iterator<ScanResponse> it = call.call(() -> kv.scan(ScanRequest.newBuilder().setPrefix(b("r")).build()));
                    int seen = call.call(() -> it.next().getKvsCount());
                    j.sendCommand(() -> "ACL".getBytes(), revoke.toArray(String[]::new));
                    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> call.call(() -> {
                        int n = seen;
                        while (it.hasNext()) {
                            n += it.next().getKvsCount();
                        }
                        return n;
                    }), revoke.toString());
                    assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode(), revoke.toString());
                } finally {
                    call.cancel(null);
                }
            }
        }
    }

    /** Whether the Watch's first message says it was created; the stream is cancelled then. */
    static boolean created(KVGrpc.KVBlockingStub kv, WatchRequest r) {
        Context.CancellableContext call = Context.current().withCancellation();
        try {
            return call.call(() -> kv.watch(r).next().getCreated());
        } catch (Exception e) {
            throw e instanceof RuntimeException re ? re : new RuntimeException(e);
        } finally {
            call.cancel(null);
        }
    }

    /**
     * A Watch of a key needs GET on it; of a prefix, SCAN and read permission on every key under it (a pattern
     * covering the prefix, in one selector): otherwise PERMISSION_DENIED, before anything is sent.
     */
    @Test
    @Timeout(60)
    void watchNeedsReadPermissionOnItsWholeTarget() throws Exception {
        try (GrpcTestServer s = new GrpcTestServer(); Jedis j = s.jedis()) {
            j.aclSetUser("reader", "on", ">pw", "~r*", "%R~s:*", "%W~t*", "+get", "+scan", "(~u:* +get +scan)");
            KVGrpc.KVBlockingStub kv = as(s.blocking(), "reader", "pw");
            for (String prefix : new String[] {"r", "r1", "s:", "s:x", "u:", "u:1"}) {
                assertTrue(created(kv, WatchRequest.newBuilder().setPrefix(b(prefix)).build()), prefix);
            }
            for (String prefix : new String[] {"", "q", "s", "t", "u", "w"}) {
                Status.Code code = code(() -> kv.watch(WatchRequest.newBuilder().setPrefix(b(prefix)).build()).next());
                assertEquals(Status.Code.PERMISSION_DENIED, code, "prefix '" + prefix + "'");
            }
            assertEquals(NOPERM_KEY, description(() -> kv.watch(WatchRequest.newBuilder().setPrefix(b("w")).build()).next()));
            assertEquals(NOPERM_KEY, description(() -> kv.watch(WatchRequest.newBuilder().setKey(b("t1")).build()).next()),
                    "%W~ does not allow reading a key's changes");
            assertTrue(created(kv, WatchRequest.newBuilder().setKey(b("s:1")).build()));
            assertTrue(j.aclLog().stream().anyMatch(e -> "key".equals(e.getReason()) && "w".equals(e.getObject())),
                    "a refused prefix is logged: " + j.aclLog());
        }
    }
}
