package dev.spinel.grpc;

import dev.spinel.grpc.v1.KVGrpc;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.nio.file.Path;

import static dev.spinel.grpc.Ops.delete;
import static dev.spinel.grpc.Ops.deleteOp;
import static dev.spinel.grpc.Ops.exists;
import static dev.spinel.grpc.Ops.get;
import static dev.spinel.grpc.Ops.put;
import static dev.spinel.grpc.Ops.putOp;
import static dev.spinel.grpc.Ops.txn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rename-command} renames what RESP clients call, not the gRPC service: with SET, GET and DEL renamed away
 * (as operators do to fence clients off commands), Put, Get, Delete and Txn work as before and RESP clients reach
 * the data under the new names only.
 */
class GrpcRenamedCommandsTest {
    @TempDir
    Path dir;

    @Test
    void theServiceKeepsWorkingWhenClientsCommandsAreRenamed() throws Exception {
        try (GrpcTestServer server = new GrpcTestServer("rename-command", "set \"\"", "rename-command", "get secret-get",
                "rename-command", "del \"\"", "appendonly", "yes", "dir", dir.toString()); Jedis jedis = server.jedis()) {
            KVGrpc.KVBlockingStub kv = server.blocking();
            kv.put(put("k", "v1"));
            assertEquals("v1", kv.get(get("k")).getKv().getValue().toStringUtf8());
            assertEquals("v1", new String((byte[]) jedis.sendCommand(() -> "SECRET-GET".getBytes(), "k".getBytes())));
            JedisDataException e = assertThrows(JedisDataException.class, () -> jedis.get("k"));
            assertTrue(e.getMessage().startsWith("ERR unknown command 'GET'"), e.getMessage());
            assertTrue(kv.txn(txn(exists("k"), putOp(put("k2", "v2")), deleteOp("k"))).getSucceeded());
            assertEquals("v2", kv.get(get("k2")).getKv().getValue().toStringUtf8());
            kv.delete(delete("k2"));
            StatusRuntimeException gone = assertThrows(StatusRuntimeException.class, () -> kv.get(get("k2")));
            assertEquals(Status.Code.NOT_FOUND, gone.getStatus().getCode());
        }
    }
}
