package dev.spinel.server.engine;

/**
 * What the engine needs from a client's transport, so that command code never touches the network
 * layer. The RESP front end implements it over a Netty channel; embedded callers may supply their own.
 */
public interface ClientConnection {
    /** "ip:port" of the peer. */
    String remoteAddress();

    /** "ip:port" of the local end. */
    String localAddress();

    /** Closes the connection after what is already written has been flushed. */
    void closeAfterReply();

    /** Closes the connection now (CLIENT KILL, limits). Safe from any thread. */
    void kill();

    /** Runs a task on the connection's own event loop (cross-loop wakeups, pushes). */
    void execute(Runnable task);

    /** Sends what the session's reply buffer holds (used when replies are produced outside a read batch). */
    void flushReplies();

    /** Bytes queued in the transport, not yet written to the socket (CLIENT LIST omem). */
    long pendingOutputBytes();

    /**
     * Runs a task on the connection's own event loop after a delay (blocking-command timeouts).
     * The returned future may be cancelled from any thread.
     */
    java.util.concurrent.Future<?> schedule(Runnable task, long delayMillis);

    /**
     * Called on the connection's loop when its session stops being suspended (a blocked command was
     * served or timed out): executes the requests that waited in the query buffer and flushes replies.
     */
    void resumeInput();
}
