package dev.spinel.server.testing;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.ClientConnection;

/**
 * A connection with no socket, for tests that drive the engine directly and read the session's
 * reply buffer. Tasks run inline, delayed tasks on a shared daemon timer; suspension is recorded.
 */
public final class DetachedConnection implements ClientConnection {
    private boolean suspended;

    @Override
    public String remoteAddress() {
        return "127.0.0.1:1";
    }

    @Override
    public String localAddress() {
        return "127.0.0.1:2";
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
    public java.util.concurrent.Future<?> schedule(Runnable task, long delayMillis) {
        return TIMERS.schedule(task, delayMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    private static final java.util.concurrent.ScheduledExecutorService TIMERS =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "detached-connection-timer");
                t.setDaemon(true);
                return t;
            });

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
