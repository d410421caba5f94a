package dev.spinel.client.internal;

import dev.spinel.client.AsyncCommands;
import dev.spinel.client.SpinelException;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Blocking over the asynchronous commands: waits for the future (a virtual thread parks and frees its
 * carrier; no extra thread per call) and rethrows the command's own exception. Thread-safe.
 */
public interface Awaiter<K, V> {
    AsyncCommands<K, V> async();

    default <T> T await(CompletableFuture<T> f) {
        if (!f.isDone() && Transport.onLoopThread()) {
            // The reply would be read by this very thread: waiting here could never end.
            throw new IllegalStateException("blocking call on the client's event loop (inside a callback): use async()");
        }
        try {
            return f.get();
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException r) {
                throw r; // as is: one exception instance may fail many commands (connection lost), never mutate it
            }
            throw new SpinelException(String.valueOf(c), c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SpinelException("interrupted while waiting for a reply", e);
        }
    }
}
