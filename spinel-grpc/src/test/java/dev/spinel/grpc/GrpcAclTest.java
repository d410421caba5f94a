package dev.spinel.grpc;

import dev.spinel.grpc.v1.KVGrpc;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;

import java.util.List;

import static dev.spinel.grpc.Ops.delete;
import static dev.spinel.grpc.Ops.get;
import static dev.spinel.grpc.Ops.put;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gRPC calls authenticate as ACL users (spinel-username + password metadata) and run with that user's
 * command and key permissions, as a RESP client after AUTH: denials are PERMISSION_DENIED with Redis's NOPERM
 * texts and appear in ACL LOG; a wrong password, an unknown or a disabled user is UNAUTHENTICATED.
 */
class GrpcAclTest {
    private static KVGrpc.KVBlockingStub as(KVGrpc.KVBlockingStub kv, String user, String password) {
        Metadata m = new Metadata();
        if (user != null) {
            m.put(AuthInterceptor.USERNAME, user);
        }
        m.put(AuthInterceptor.PASSWORD, password);
        return kv.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(m));
    }

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
}
