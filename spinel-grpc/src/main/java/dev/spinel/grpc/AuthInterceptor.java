package dev.spinel.grpc;

import dev.spinel.server.acl.User;
import dev.spinel.server.engine.EmbeddedClient;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

import java.nio.charset.StandardCharsets;

/**
 * Authenticates each KV call as a Redis user, as AUTH does: {@code spinel-username} names the user (the
 * {@code default} user when absent) and the password comes as {@code spinel-password: <password>} or
 * {@code authorization: Bearer <password>}. A call of the default user needs no password while it has
 * none (no requirepass). A wrong password, an unknown or a disabled user fails with UNAUTHENTICATED.
 * The user rides in the call's {@link Context} ({@link #USER}); {@link KvStore} checks its command and key
 * permissions per operation. Users and passwords are read per call, so ACL SETUSER, ACL DELUSER and CONFIG
 * SET requirepass apply to the next call at once. The health and reflection services stay open (they
 * reveal no data).
 *
 * <p>Thread-safety: stateless apart from the engine's (thread-safe) ACL.
 */
final class AuthInterceptor implements ServerInterceptor {
    static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> PASSWORD = Metadata.Key.of("spinel-password", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> USERNAME = Metadata.Key.of("spinel-username", Metadata.ASCII_STRING_MARSHALLER);
    /** The call's authenticated user. */
    static final Context.Key<User> USER = Context.key("spinel-user");

    private final EmbeddedClient client;

    AuthInterceptor(EmbeddedClient client) {
        this.client = client;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        if (!call.getMethodDescriptor().getServiceName().equals("spinel.kv.v1.KV")) {
            return next.startCall(call, headers);
        }
        String name = headers.get(USERNAME);
        String given = headers.get(PASSWORD);
        String auth = headers.get(AUTHORIZATION);
        User user = user(client, name, given, auth);
        if (user == null) {
            call.close(refusal(name, given, auth), new Metadata());
            return new ServerCall.Listener<>() {
            };
        }
        return Contexts.interceptCall(Context.current().withValue(USER, user), call, headers, next);
    }

    /**
     * The user a call of these metadata values (each null when absent) runs as, or null (refused): shared with the
     * fast unary path ({@link FastUnaryCalls}), which reads the same headers without grpc-java's {@link Metadata}.
     */
    static User user(EmbeddedClient client, String name, String given, String auth) {
        if (given == null && auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            given = auth.substring(7);
        }
        if (name == null && given == null) {
            return client.defaultUserWithoutPassword();
        }
        return client.authenticate(name == null ? "default" : name,
                given == null ? new byte[0] : given.getBytes(StandardCharsets.UTF_8));
    }

    /** The status of a call {@link #user} refused (the same metadata values). */
    static Status refusal(String name, String given, String auth) {
        boolean bearer = auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7);
        return Status.UNAUTHENTICATED.withDescription(name == null && given == null && !bearer
                ? "authentication required: send 'authorization: Bearer <password>' (and 'spinel-username: <user>')"
                : "WRONGPASS invalid username-password pair or user is disabled.");
    }
}
