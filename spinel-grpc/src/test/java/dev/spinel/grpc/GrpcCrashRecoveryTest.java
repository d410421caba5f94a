package dev.spinel.grpc;

import dev.spinel.grpc.v1.BatchOp;
import dev.spinel.grpc.v1.BatchRequest;
import dev.spinel.grpc.v1.BatchResponse;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.grpc.v1.TxnRequest;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import dev.spinel.server.testing.SpinelProcess;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static dev.spinel.grpc.Ops.create;
import static dev.spinel.grpc.Ops.delete;
import static dev.spinel.grpc.Ops.deleteOp;
import static dev.spinel.grpc.Ops.exists;
import static dev.spinel.grpc.Ops.op;
import static dev.spinel.grpc.Ops.put;
import static dev.spinel.grpc.Ops.putOp;
import static dev.spinel.grpc.Ops.txn;
import static dev.spinel.grpc.Ops.update;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kill -9 under {@code appendfsync always}, as {@code CrashRecoveryTest} does for RESP: Spinel runs as a
 * separate JVM with its gRPC service, gRPC writes of every kind are acknowledged, the process is killed
 * (once right after a sequence of acknowledged writes, once at a random moment during a stream of
 * unary Puts and pipelined Batch messages), and after a restart every acknowledged write is there and
 * every acknowledged delete stays deleted. At the random moment, unary Puts, pipelined Batch puts and a
 * cycle of Txn (puts, a delete), Update and Delete run side by side.
 */
class GrpcCrashRecoveryTest {
    private static final int PER_MESSAGE = 4;

    @TempDir
    Path dir;

    private Process start(int port, int grpcPort) throws Exception {
        List<String> cmd = SpinelProcess.command("--port", Integer.toString(port), "--dir", dir.toString(), "--appendonly", "yes",
                "--appendfsync", "always", "--save", "", "--grpc-port", Integer.toString(grpcPort),
                "--grpc-bind", "127.0.0.1");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("spinel.log").toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int listening : new int[] {port, grpcPort}) {
            while (true) {
                try {
                    new Socket("127.0.0.1", listening).close();
                    break;
                } catch (IOException notYet) {
                    assertTrue(p.isAlive(), "spinel exited; see " + Files.readString(dir.resolve("spinel.log")));
                    if (System.nanoTime() > deadline) {
                        p.destroyForcibly();
                        throw new AssertionError("spinel did not start");
                    }
                    Thread.sleep(50);
                }
            }
        }
        return p;
    }

    private static ManagedChannel channel(int grpcPort) {
        return NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
    }

    private static void kill(Process p) throws InterruptedException {
        p.destroyForcibly(); // SIGKILL
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    }

    @Test
    @Timeout(120)
    void everyAcknowledgedGrpcWriteSurvivesKill9() throws Exception {
        int port = RedisServerProcess.freePort();
        int grpcPort = RedisServerProcess.freePort();
        Process spinel = start(port, grpcPort);
        ManagedChannel ch = channel(grpcPort);
        try (RawClient c = new RawClient(port)) {
            KVGrpc.KVBlockingStub kv = KVGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS);
            c.call("SET", "viaresp", "1");
            c.call("SET", "upd", "old");
            c.call("SET", "gone", "1");
            c.call("SET", "txgone", "1");
            c.call("SET", "batchgone", "1");
            assertTrue(kv.put(put("grpckey", "v")).getCreated());
            kv.put(put("ttlkey", "t", 3_600_000));
            kv.create(create("created", "c"));
            kv.update(update("upd", "new"));
            kv.delete(delete("gone"));
            assertTrue(kv.txn(txn(exists("txgone"), putOp(put("tx1", "a")), putOp(put("tx2", "b")), deleteOp("txgone")))
                    .getSucceeded());
            BatchResponse r = Ops.batch(KVGrpc.newStub(ch), op(put("batch1", "x")), op(delete("batchgone")));
            assertEquals(0, r.getResults(1).getCode(), r.toString());
        }
        kill(spinel); // right after the last acknowledgement
        ch.shutdownNow();

        Process again = start(port, grpcPort);
        try (RawClient c = new RawClient(port)) {
            assertEquals("$1\r\n1\r\n", c.callString("GET", "viaresp"));
            assertEquals("$1\r\nv\r\n", c.callString("GET", "grpckey"), "gRPC Put");
            assertEquals("$1\r\nt\r\n", c.callString("GET", "ttlkey"), "gRPC Put with a TTL");
            assertTrue(Long.parseLong(c.callString("PTTL", "ttlkey").trim().substring(1)) > 3_000_000);
            assertEquals("$1\r\nc\r\n", c.callString("GET", "created"), "gRPC Create");
            assertEquals("$3\r\nnew\r\n", c.callString("GET", "upd"), "gRPC Update");
            assertEquals(":0\r\n", c.callString("EXISTS", "gone"), "gRPC Delete");
            assertEquals("$1\r\na\r\n", c.callString("GET", "tx1"), "Txn put");
            assertEquals("$1\r\nb\r\n", c.callString("GET", "tx2"), "Txn put");
            assertEquals(":0\r\n", c.callString("EXISTS", "txgone"), "Txn delete");
            assertEquals("$1\r\nx\r\n", c.callString("GET", "batch1"), "Batch put");
            assertEquals(":0\r\n", c.callString("EXISTS", "batchgone"), "Batch delete");
        } finally {
            kill(again);
        }
    }

    @Test
    @Timeout(120)
    void acknowledgedGrpcWritesSurviveAKillAtARandomMoment() throws Exception {
        int port = RedisServerProcess.freePort();
        int grpcPort = RedisServerProcess.freePort();
        Process spinel = start(port, grpcPort);
        ManagedChannel ch = channel(grpcPort);
        AtomicLong unaryAcked = new AtomicLong(-1); // highest n whose Put of u:n was acknowledged
        AtomicLong batchAcked = new AtomicLong(0); // Batch messages acknowledged, in order
        Thread unary = new Thread(() -> {
            KVGrpc.KVBlockingStub kv = KVGrpc.newBlockingStub(ch);
            try {
                for (long n = 0; ; n++) {
                    kv.withDeadlineAfter(30, TimeUnit.SECONDS).put(put("u:" + n, Long.toString(n)));
                    unaryAcked.set(n);
                }
            } catch (RuntimeException killed) {
                // the server went away
            }
        });
        Semaphore window = new Semaphore(16); // pipelined: up to 16 messages in flight
        Thread batch = new Thread(() -> {
            StreamObserver<BatchRequest> in = KVGrpc.newStub(ch).batch(new StreamObserver<>() {
                @Override
                public void onNext(BatchResponse r) {
                    for (var result : r.getResultsList()) {
                        if (result.getCode() != 0) {
                            throw new AssertionError(r.toString());
                        }
                    }
                    batchAcked.incrementAndGet();
                    window.release();
                }

                @Override
                public void onError(Throwable t) {
                    window.release(1000);
                }

                @Override
                public void onCompleted() {
                }
            });
            try {
                for (long m = 0; ; m++) {
                    if (!window.tryAcquire(30, TimeUnit.SECONDS) || ch.isShutdown()) {
                        return;
                    }
                    BatchRequest.Builder b = BatchRequest.newBuilder();
                    for (int i = 0; i < PER_MESSAGE; i++) {
                        long n = m * PER_MESSAGE + i;
                        b.addOps(BatchOp.newBuilder().setPut(put("s:" + n, Long.toString(n))));
                    }
                    in.onNext(b.build());
                }
            } catch (InterruptedException | RuntimeException killed) {
                // the server went away
            }
        });
        // Update, Delete and Txn (puts, then a delete) in a cycle of four steps per n; steps acknowledged, in order.
        AtomicLong mixedAcked = new AtomicLong(0);
        Thread mixed = new Thread(() -> {
            KVGrpc.KVBlockingStub kv = KVGrpc.newBlockingStub(ch);
            try {
                for (long n = 0; ; n++) {
                    kv.withDeadlineAfter(30, TimeUnit.SECONDS).txn(TxnRequest.newBuilder().addSuccessOps(putOp(put("t:" + n, "p")))
                            .addSuccessOps(putOp(put("d:" + n, "p"))).addSuccessOps(putOp(put("e:" + n, "p"))).build());
                    mixedAcked.incrementAndGet();
                    kv.withDeadlineAfter(30, TimeUnit.SECONDS).update(update("t:" + n, "u"));
                    mixedAcked.incrementAndGet();
                    kv.withDeadlineAfter(30, TimeUnit.SECONDS).delete(delete("d:" + n));
                    mixedAcked.incrementAndGet();
                    kv.withDeadlineAfter(30, TimeUnit.SECONDS).txn(TxnRequest.newBuilder().addSuccessOps(deleteOp("e:" + n)).build());
                    mixedAcked.incrementAndGet();
                }
            } catch (RuntimeException killed) {
                // the server went away
            }
        });
        unary.start();
        batch.start();
        mixed.start();
        long warm = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while ((unaryAcked.get() < 0 || batchAcked.get() == 0 || mixedAcked.get() < 4) && System.nanoTime() < warm) {
            Thread.sleep(10);
        }
        Thread.sleep(ThreadLocalRandom.current().nextLong(100, 1200));
        kill(spinel);
        unary.join(30_000);
        mixed.join(30_000);
        ch.shutdownNow();
        batch.join(30_000);
        long lastUnary = unaryAcked.get();
        long messages = batchAcked.get();
        long steps = mixedAcked.get();
        assertTrue(lastUnary >= 0 && messages > 0 && steps >= 4, "the writers got going: " + lastUnary + " " + messages + " " + steps);
        System.out.printf("gRPC kill -9: %d unary Puts, %d Batch messages and %d Txn/Update/Delete steps acknowledged%n",
                lastUnary + 1, messages, steps);

        Process again = start(port, grpcPort);
        try (RawClient c = new RawClient(port)) {
            for (long n = 0; n <= lastUnary; n++) {
                String v = Long.toString(n);
                assertEquals("$" + v.length() + "\r\n" + v + "\r\n", c.callString("GET", "u:" + n),
                        "Put " + n + " of " + lastUnary + " acknowledged");
            }
            for (long n = 0; n < messages * PER_MESSAGE; n++) {
                String v = Long.toString(n);
                assertEquals("$" + v.length() + "\r\n" + v + "\r\n", c.callString("GET", "s:" + n),
                        "Batch put " + n + " of " + messages * PER_MESSAGE + " acknowledged");
            }
            for (long n = 0; 4 * n < steps; n++) {
                String at = " (step " + steps + " acknowledged)";
                assertEquals(":1\r\n", c.callString("EXISTS", "t:" + n), "Txn put t:" + n + at);
                if (4 * n + 2 <= steps) {
                    assertEquals("$1\r\nu\r\n", c.callString("GET", "t:" + n), "Update of t:" + n + at);
                }
                if (4 * n + 3 <= steps) {
                    assertEquals(":0\r\n", c.callString("EXISTS", "d:" + n), "Delete of d:" + n + at);
                }
                if (4 * n + 4 <= steps) {
                    assertEquals(":0\r\n", c.callString("EXISTS", "e:" + n), "Txn delete of e:" + n + at);
                }
            }
        } finally {
            kill(again);
        }
    }
}
