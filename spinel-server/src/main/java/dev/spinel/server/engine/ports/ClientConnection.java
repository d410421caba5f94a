package dev.spinel.server.engine.ports;

import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;

import dev.spinel.protocol.Args;

/**
 * What the engine needs from a client's transport, so that command code never touches the network
 * layer. The RESP front end implements it over a Netty channel; embedded callers may supply their own.
 *
 * <p><b>Suspension</b> (CLIENT PAUSE, and blocking commands): {@link #suspend} stops the execution
 * of the client's input after the command being executed, without blocking the event loop; input
 * keeps arriving and is buffered. {@link #resume} (from any thread) schedules, on the connection's
 * event loop, a task that first re-executes the postponed request if one was given, then the
 * buffered input, and sends the replies.
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

    /**
     * Runs {@code writes} (messages pushed to the session outside a read batch: pub/sub, invalidations) and, when it
     * wrote anything (true), sends them. The RESP transport has them written into its loop's shared reply scratch
     * when the session holds no array of its own, so that a subscriber keeps no reply array between deliveries:
     * one kept would count in used_memory and, for invalidations, make every eviction evict again. On the loop.
     */
    default void pushAndFlush(BooleanSupplier writes) {
        if (writes.getAsBoolean()) {
            flushReplies();
        }
    }

    /** Bytes queued in the transport, not yet written to the socket (CLIENT LIST omem). */
    long pendingOutputBytes();

    /**
     * False while the transport holds more than it lets a sender add (Netty's high water mark): a replica's link then
     * leaves the shared stream in the backlog until {@link #whenWritable}. Call on the loop.
     */
    default boolean outputWritable() {
        return true;
    }

    /**
     * Lowers how much output the transport queues before {@link #outputWritable} turns false (a replica's link: what
     * the replica has not taken stays in the shared backlog, not in a second copy of up to the clients' bound).
     */
    default void queueAtMost(int bytes) {
    }

    /** Runs {@code task} on the loop once {@link #outputWritable} (now if it is); one task at a time. Call on the loop. */
    default void whenWritable(Runnable task) {
        task.run();
    }

    /**
     * This client's buffers at the last sample of used_memory's clients part (taken off the total when it goes);
     * a connection that keeps none answers 0.
     */
    default long memorySample() {
        return 0;
    }

    /** Records {@link #memorySample()}. */
    default void memorySample(long bytes) {
    }

    /** This client's share in the client-eviction total at its last check (see ClientEviction); 0 if none is kept. */
    default long evictionShare() {
        return 0;
    }

    /** Records {@link #evictionShare()}. */
    default void evictionShare(long bytes) {
    }

    /**
     * Stops executing this client's input after the current command (event loop only). {@code retry}
     * is the request to execute again on {@link #resume} (a command postponed by CLIENT PAUSE; the
     * connection copies it if it points into its receive buffer), or {@code null} when the current
     * command already ran (a blocking command, which replies when woken).
     */
    void suspend(Args retry);

    /** Resumes a suspended connection on its event loop; a no-op if it is not suspended. Safe from any thread. */
    void resume();

    /** True while suspended (read on the event loop; informational elsewhere). */
    boolean suspended();

    /**
     * Whether this connection can lend its session to another thread ({@link #lend}): true for event-loop
     * connections (RESP), whose scripts then run on the script thread while their loop serves the others.
     */
    /**
     * Sets the socket's TCP_NODELAY (on for every client; {@code repl-disable-tcp-nodelay} turns it off for a replica).
     * A connection without a socket has nothing to set.
     */
    default void noDelay(boolean on) {
    }

    default boolean lendable() {
        return false;
    }

    /**
     * Lends the session to another thread (the script thread) until {@link #giveBack}: called on the
     * connection's loop, inside a command. Until then the loop executes none of this client's input, writes
     * nothing into its reply buffer (deliveries wait), sends nothing, and defers closing the session if the
     * peer goes away: the borrowing thread alone uses the session.
     */
    default void lend() {
        throw new UnsupportedOperationException("not lendable");
    }

    /**
     * Ends a {@link #lend} (from the borrowing thread): on the loop, pending deliveries are written, the
     * replies sent, and the client's buffered input executed.
     */
    default void giveBack() {
        throw new UnsupportedOperationException("not lendable");
    }

    /**
     * While lent, hands what the peer sends to {@code sink} (on the connection's loop) instead of queueing it as
     * requests: the Lua debugger (SCRIPT DEBUG SYNC) reads its commands as raw bytes, as Redis reads the socket.
     * {@code sink} gets {@code null} once the peer is gone (at once if it already is); a null sink ends the tap.
     * False when the transport cannot (then nothing is tapped).
     */
    default boolean tapInput(java.util.function.Consumer<byte[]> sink) {
        return false;
    }

    /**
     * Sends {@code bytes} to the peer now, from any thread, ahead of the replies written after this call (the
     * debugger's output while the script is stopped). A no-op once the peer is gone.
     */
    default void sendRaw(byte[] bytes) {
    }

    /** True while lent ({@link #lend}); read on the connection's loop. */
    default boolean lent() {
        return false;
    }

    /** The socket's file descriptor, or -1 if the transport does not expose one (CLIENT LIST fd). */
    default int fileDescriptor() {
        return -1;
    }

    /**
     * The event loop serving this connection (compared by identity: connections of one loop never run at the
     * same time), or null when the transport has none (embedded callers).
     */
    default Object loop() {
        return null;
    }

    /** True when the receive buffer holds input after the request being executed (a pipeline goes on). */
    default boolean hasMoreInput() {
        return false;
    }

    /** Bytes in the receive buffer not yet consumed (CLIENT LIST qbuf). */
    default long queryBufferLength() {
        return 0;
    }

    /**
     * CLIENT LIST's qbuf: the received bytes not yet parsed into arguments. Redis moves each argument of a
     * request in progress out of its query buffer as it is parsed (a large one is then read into a buffer of its
     * own, the bulk's header gone), so a client sending a large argument shows the argument's bytes received.
     */
    default long queryBufferUnparsed() {
        return queryBufferLength();
    }

    /** Free space in the receive buffer (CLIENT LIST qbuf-free). */
    default long queryBufferFree() {
        return 0;
    }

    /**
     * Runs a task on the connection's own event loop after a delay (blocking-command timeouts,
     * CLIENT PAUSE deadlines). The returned future may be cancelled from any thread.
     */
    Future<?> schedule(Runnable task, long delayMillis);
}
