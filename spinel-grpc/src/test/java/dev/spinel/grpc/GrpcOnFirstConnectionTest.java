package dev.spinel.grpc;

import com.google.protobuf.ByteString;
import dev.spinel.grpc.v1.GetRequest;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.SpinelProcess;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gRPC is loaded on the gRPC port's first connection, not at the server's start (issue #15), and that first
 * connection, and every one that arrives while the service starts, is served.
 */
class GrpcOnFirstConnectionTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void aServerNobodyCallsOverGrpcLoadsNoGrpcClassAndTheFirstCallIsServed() throws Exception {
        int port = freePort();
        int grpcPort = freePort();
        Path classLog = dir.resolve("classes.log");
        Path log = dir.resolve("spinel.log");
        Process p = new ProcessBuilder(SpinelProcess.command(List.of("-Xlog:class+load=info:file=" + classLog),
                "--port", Integer.toString(port), "--dir", dir.toString(), "--grpc-port", Integer.toString(grpcPort),
                "--grpc-bind", "127.0.0.1", "--save", ""))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.readString(log).contains("loaded on its first connection")) {
                assertTrue(p.isAlive() && System.nanoTime() < deadline, "spinel did not start: " + Files.readString(log));
                Thread.sleep(50);
            }
            // Jedis's default 2 s read timeout: the fresh child's first SET took longer on a loaded machine
            try (Jedis j = new Jedis("127.0.0.1", port, 30_000)) {
                assertEquals("OK", j.set("boot", "ok"));
            }
            String before = Files.readString(classLog);
            assertTrue(before.contains("dev.spinel.grpc.GrpcOnFirstConnection "), "the class log is incomplete");
            assertFalse(before.contains(" io.grpc."), "gRPC was loaded before its first connection");
            assertFalse(before.contains(" com.google.protobuf."), "protobuf was loaded before gRPC's first connection");
            assertFalse(before.contains(" io.netty.handler.codec.http2."), "HTTP/2 was loaded before gRPC's first connection");

            var kv = KVGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS);
            assertEquals("ok", kv.get(GetRequest.newBuilder().setKey(ByteString.copyFromUtf8("boot")).build())
                    .getKv().getValue().toStringUtf8());
            assertTrue(Files.readString(classLog).contains(" io.grpc.netty."), "the call was served without gRPC?");
        } finally {
            ch.shutdownNow();
            p.destroy();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        }
    }

    @Test
    @Timeout(120)
    void connectionsArrivingWhileTheServiceStartsAreAllServed() throws Exception {
        int grpcPort = freePort();
        try (SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("grpc-port", Integer.toString(grpcPort)).with("grpc-bind", "127.0.0.1"))) {
            try (Jedis j = new Jedis("127.0.0.1", spinel.port(), 30_000)) {
                j.set("boot", "ok");
            }
            // A raw connection that sends nothing yet is accepted and waits; gRPC clients come at once behind it.
            try (Socket idle = new Socket("127.0.0.1", grpcPort)) {
                int clients = 8;
                ExecutorService pool = Executors.newFixedThreadPool(clients);
                List<ManagedChannel> channels = new ArrayList<>();
                try {
                    CountDownLatch go = new CountDownLatch(1);
                    List<Future<String>> got = new ArrayList<>();
                    for (int i = 0; i < clients; i++) {
                        ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
                        channels.add(ch);
                        got.add(pool.submit(() -> {
                            go.await();
                            return KVGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS)
                                    .get(GetRequest.newBuilder().setKey(ByteString.copyFromUtf8("boot")).build())
                                    .getKv().getValue().toStringUtf8();
                        }));
                    }
                    go.countDown();
                    for (Future<String> f : got) {
                        assertEquals("ok", f.get(60, TimeUnit.SECONDS));
                    }
                } finally {
                    for (ManagedChannel ch : channels) {
                        ch.shutdownNow();
                    }
                    pool.shutdownNow();
                }
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
