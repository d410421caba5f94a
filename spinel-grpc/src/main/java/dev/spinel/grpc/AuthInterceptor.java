package dev.spinel.grpc;

import dev.spinel.server.config.ServerConfig;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * When {@code requirepass} is set, a KV call must carry the password in its metadata, either as
 * {@code authorization: Bearer <password>} or as {@code spinel-password: <password>}; otherwise it
 * fails with UNAUTHENTICATED. The health and reflection services stay open (they reveal no data).
 * The password is read per call, so CONFIG SET requirepass applies at once.
 *
 * <p>Thread-safety: stateless apart from the (thread-safe) configuration.
 */
final class AuthInterceptor implements ServerInterceptor {
    static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> PASSWORD = Metadata.Key.of("spinel-password", Metadata.ASCII_STRING_MARSHALLER);

    private final ServerConfig config;

    AuthInterceptor(ServerConfig config) {
        this.config = config;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        String required = config.requirepass.value();
        if (required.isEmpty() || !call.getMethodDescriptor().getServiceName().equals("spinel.kv.v1.KV")) {
            return next.startCall(call, headers);
        }
        String given = headers.get(PASSWORD);
        String auth = headers.get(AUTHORIZATION);
        if (given == null && auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            given = auth.substring(7);
        }
        if (given == null || !MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8), required.getBytes(StandardCharsets.UTF_8))) {
            call.close(Status.UNAUTHENTICATED.withDescription(given == null
                    ? "requirepass is set: send 'authorization: Bearer <password>'" : "invalid password"), new Metadata());
            return new ServerCall.Listener<>() {
            };
        }
        return next.startCall(call, headers);
    }
}
