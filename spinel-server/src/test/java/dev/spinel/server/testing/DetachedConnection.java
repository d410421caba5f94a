package dev.spinel.server.testing;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.ClientConnection;

/**
 * A connection with no socket, for tests that drive the engine directly and read the session's
 * reply buffer. Tasks run inline; suspension is recorded but nothing is ever resumed by it.
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
    public void schedule(Runnable task, long delayMillis) {
        task.run();
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
