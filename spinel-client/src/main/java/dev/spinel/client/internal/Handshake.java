package dev.spinel.client.internal;

import dev.spinel.client.RedisUri;
import dev.spinel.client.ServerErrorException;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.IntConsumer;

/**
 * The steps a {@link Connection} takes on each new channel before its queued commands: {@code HELLO 3} (with
 * AUTH), or on "unknown command"/NOPROTO the RESP2 way ({@code AUTH} when the URI has a password), then
 * {@code SELECT} when the URI names a database.
 *
 * <p>Thread-safety: stateless; run on the connection's event loop, as every step's completion is.
 */
final class Handshake {
    private Handshake() {
    }

    /**
     * Runs the steps, each command written by {@code send} ahead of everything queued; {@code protocol} learns
     * the RESP version agreed. The future fails with the first step's error.
     */
    static CompletableFuture<?> run(RedisUri uri, boolean resp3, Function<Object[], CompletableFuture<?>> send,
                                    IntConsumer protocol) {
        CompletableFuture<?> step;
        if (resp3) {
            Object[] hello = uri.password() == null ? new Object[]{"HELLO", "3"}
                    : new Object[]{"HELLO", "3", "AUTH", uri.user() == null ? "default" : uri.user(), uri.password()};
            step = send.apply(hello).handle((v, e) -> {
                if (e == null) {
                    protocol.accept(3);
                    return CompletableFuture.completedFuture(v);
                }
                String m = e.getMessage() == null ? "" : e.getMessage();
                if (e instanceof ServerErrorException && (m.startsWith("NOPROTO") || m.startsWith("ERR unknown command"))) {
                    return auth2(uri, send, protocol);
                }
                return CompletableFuture.failedFuture(e);
            }).thenCompose(x -> x);
        } else {
            step = auth2(uri, send, protocol);
        }
        return step.thenCompose(v -> uri.db() != 0 ? send.apply(new Object[]{"SELECT", (long) uri.db()})
                : CompletableFuture.completedFuture(null));
    }

    private static CompletableFuture<?> auth2(RedisUri uri, Function<Object[], CompletableFuture<?>> send, IntConsumer protocol) {
        protocol.accept(2);
        if (uri.password() == null) {
            return CompletableFuture.completedFuture(null);
        }
        Object[] auth = uri.user() == null ? new Object[]{"AUTH", uri.password()} : new Object[]{"AUTH", uri.user(), uri.password()};
        return send.apply(auth);
    }
}
