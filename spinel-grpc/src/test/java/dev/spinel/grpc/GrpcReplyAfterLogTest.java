package dev.spinel.grpc;

import dev.spinel.grpc.v1.BatchOp;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.protocol.Args;
import dev.spinel.server.engine.Command;
import dev.spinel.server.engine.Propagator;
import dev.spinel.server.engine.Session;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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

/**
 * Every gRPC write's reply waits for the log to acknowledge the write's own position, checked without a crash
 * and without timing luck: the real log is wrapped in one that acknowledges nothing while closed, so a reply that
 * leaves anyway (a unit reporting position 0, or an earlier position than its block's, as EmbeddedClient.run once
 * did) is seen leaving. Each write kind (Put, Create, Update, Delete, Txn, and each of them as a Batch op) must
 * still be waiting after a while, and must arrive once the log acknowledges again; a Get does not wait.
 */
class GrpcReplyAfterLogTest {
    @TempDir
    Path dir;

    /** The real log, with acknowledgements held while {@link #closed}. */
    private static final class GatedLog implements Propagator {
        private final Propagator real;
        private final List<Runnable> held = new ArrayList<>();
        private volatile boolean closed;

        GatedLog(Propagator real) {
            this.real = real;
        }

        @Override
        public void propagate(Session session, Command cmd, Args args) {
            real.propagate(session, cmd, args);
        }

        @Override
        public void propagateEffect(int db, byte[][] argv) {
            real.propagateEffect(db, argv);
        }

        @Override
        public void propagateServed(Session served, int db, List<byte[][]> commands) {
            real.propagateServed(served, db, commands);
        }

        @Override
        public void execDone(Session session) {
            real.execDone(session);
        }

        @Override
        public boolean acknowledged(long position) {
            return !closed && real.acknowledged(position);
        }

        @Override
        public boolean writeNow(long position) {
            return !closed && real.writeNow(position);
        }

        @Override
        public synchronized void whenAcknowledged(long position, Runnable task) {
            if (closed) {
                held.add(() -> real.whenAcknowledged(position, task));
            } else {
                real.whenAcknowledged(position, task);
            }
        }

        synchronized void close() {
            closed = true;
        }

        synchronized void open() {
            closed = false;
            held.forEach(Runnable::run);
            held.clear();
        }
    }

    @Test
    @Timeout(120)
    void noWriteIsAnsweredBeforeTheLogAcknowledgesIt() throws Exception {
        try (GrpcTestServer s = new GrpcTestServer("dir", dir.toString(), "appendonly", "yes", "appendfsync", "always");
             Jedis j = s.jedis()) {
            KVGrpc.KVBlockingStub kv = s.blocking();
            for (String k : new String[] {"r", "u1", "u2", "d1", "d2", "t1", "t2"}) {
                j.set(k, "old");
            }
            GatedLog log = new GatedLog(s.spinel.engine().hooks().propagator());
            s.spinel.engine().hooks().propagator(log);
            Map<String, Callable<?>> writes = new LinkedHashMap<>();
            writes.put("Put", () -> kv.put(put("p1", "v")));
            writes.put("Create", () -> kv.create(create("c1", "v")));
            writes.put("Update", () -> kv.update(update("u1", "v")));
            writes.put("Delete", () -> kv.delete(delete("d1")));
            writes.put("Txn", () -> kv.txn(txn(exists("t1"), putOp(put("t3", "v")), deleteOp("t1"))));
            writes.put("Batch Put", () -> Ops.batch(s.async(), op(put("p2", "v"))));
            writes.put("Batch Create", () -> Ops.batch(s.async(), BatchOp.newBuilder().setCreate(create("c2", "v")).build()));
            writes.put("Batch Update", () -> Ops.batch(s.async(), BatchOp.newBuilder().setUpdate(update("u2", "v")).build()));
            writes.put("Batch Delete", () -> Ops.batch(s.async(), op(delete("d2"))));
            writes.put("Batch Txn", () -> Ops.batch(s.async(),
                    BatchOp.newBuilder().setTxn(txn(exists("t2"), deleteOp("t2"))).build()));
            for (Map.Entry<String, Callable<?>> w : writes.entrySet()) {
                log.close();
                CompletableFuture<Object> reply = CompletableFuture.supplyAsync(() -> {
                    try {
                        return w.getValue().call();
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
                assertEquals("old", kv.get(get("r")).getKv().getValue().toStringUtf8(), "a read does not wait for the log");
                Thread.sleep(300);
                assertFalse(reply.isDone(), w.getKey() + " was answered before the log acknowledged it");
                log.open();
                reply.get(10, TimeUnit.SECONDS);
            }
            s.spinel.engine().hooks().propagator(log.real);
        }
    }
}
