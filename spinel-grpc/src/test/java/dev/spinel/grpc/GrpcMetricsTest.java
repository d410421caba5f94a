package dev.spinel.grpc;

import com.google.protobuf.ByteString;
import dev.spinel.grpc.v1.GetRequest;
import dev.spinel.grpc.v1.PutRequest;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** gRPC calls are counted by method and status code on the server's Prometheus endpoint. */
@Timeout(60)
class GrpcMetricsTest {
    @Test
    void callsByMethodAndCode() throws Exception {
        int mport;
        try (ServerSocket s = new ServerSocket(0)) {
            mport = s.getLocalPort();
        }
        try (GrpcTestServer server = new GrpcTestServer("metrics-port", Integer.toString(mport))) {
            var kv = server.blocking();
            kv.put(PutRequest.newBuilder().setKey(ByteString.copyFromUtf8("k")).setValue(ByteString.copyFromUtf8("v")).build());
            kv.put(PutRequest.newBuilder().setKey(ByteString.copyFromUtf8("k")).setValue(ByteString.copyFromUtf8("w")).build());
            assertThrows(StatusRuntimeException.class, () -> kv.get(GetRequest.newBuilder().setKey(ByteString.copyFromUtf8("nope")).build()));
            for (int i = 0; i < 3; i++) { // one method, two codes: each its own series
                kv.get(GetRequest.newBuilder().setKey(ByteString.copyFromUtf8("k")).build());
            }
            String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + mport + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(body.contains("spinel_grpc_calls_total{code=\"OK\",method=\"spinel.kv.v1.KV/Put\"} 2.0"), body);
            assertTrue(body.contains("spinel_grpc_calls_total{code=\"NOT_FOUND\",method=\"spinel.kv.v1.KV/Get\"} 1.0"), body);
            assertTrue(body.contains("spinel_grpc_calls_total{code=\"OK\",method=\"spinel.kv.v1.KV/Get\"} 3.0"), body);
        }
    }
}
