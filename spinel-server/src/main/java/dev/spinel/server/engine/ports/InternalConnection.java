package dev.spinel.server.engine.ports;

import dev.spinel.protocol.Args;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The connection of one of the server's own clients that has no socket (the append-only log's
 * replay, adapters that call the engine directly). Tasks run on the calling thread; delayed tasks
 * run on the JDK's shared delayed executor; replies stay in the session's buffer for the caller.
 *
 * <p>Thread-safety: like a socket connection, used by one thread at a time.
 */
public class InternalConnection implements ClientConnection {
    private final String name;
    private boolean suspended;

    public InternalConnection(String name) {
        this.name = name;
    }

    @Override
    public String remoteAddress() {
        return name;
    }

    @Override
    public String localAddress() {
        return name;
    }

    @Override
    public void closeAfterReply() {
    }

    @Override
    public void kill() {
    }

    @Override
    public void execute(Runnable task) {
        task.run();
    }

    @Override
    public Future<?> schedule(Runnable task, long delayMillis) {
        return CompletableFuture.runAsync(task, CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS));
    }

    @Override
    public void flushReplies() {
    }

    @Override
    public long pendingOutputBytes() {
        return 0;
    }

    @Override
    public void suspend(Args retry) {
        suspended = true;
    }

    @Override
    public void resume() {
        suspended = false;
    }

    @Override
    public boolean suspended() {
        return suspended;
    }
}
