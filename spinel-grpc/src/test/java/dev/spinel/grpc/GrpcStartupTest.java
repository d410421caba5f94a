package dev.spinel.grpc;

import com.google.protobuf.ByteString;
import dev.spinel.grpc.v1.GetRequest;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The server starts the gRPC service itself (ServiceLoader) on grpc-bind:grpc-port, and stops it on close. */
class GrpcStartupTest {
    @Test
    void startedAndStoppedWithTheServer() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        try {
            try (SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                    .with("grpc-port", Integer.toString(port)).with("grpc-bind", "127.0.0.1"))) {
                // generous bounds (Jedis's 2 s, the calls' 5 s, which also covered connecting) for a loaded machine
                try (Jedis j = new Jedis("127.0.0.1", spinel.port(), 30_000)) {
                    j.set("boot", "ok");
                    assertEquals(Integer.toString(port), j.configGet("grpc-port").get("grpc-port"));
                }
                var kv = KVGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS);
                assertEquals("ok", kv.get(GetRequest.newBuilder().setKey(ByteString.copyFromUtf8("boot")).build())
                        .getKv().getValue().toStringUtf8());
            }
            var kv = KVGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS);
            assertEquals(Status.Code.UNAVAILABLE, assertThrows(StatusRuntimeException.class,
                    () -> kv.get(GetRequest.newBuilder().setKey(ByteString.copyFromUtf8("boot")).build())).getStatus().getCode());
        } finally {
            ch.shutdownNow();
        }
    }
}
