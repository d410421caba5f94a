package dev.spinel.server.engine;

import dev.spinel.protocol.ReplyBuffer;

/**
 * What a blocked command (BLPOP, BLMOVE, BZPOPMIN, ...) does once one of its keys may have data.
 * One instance per blocked client, created when the command blocks; it holds the parsed arguments
 * the retry needs (direction, destination, count...).
 *
 * <p>Called on whichever event loop made the key ready, with no locks held.
 */
public interface BlockedOperation {
    /**
     * Tries to complete the command for the waiter on the ready key {@code ctx.key()}. It must lock the
     * stripes it needs with {@code ctx.locks()}, re-check the key under the lock, and call
     * {@link ServeContext#claim()} before changing anything: if claim returns false the waiter has
     * timed out, disconnected or been unblocked meanwhile, and nothing may be changed. Once claimed,
     * it writes exactly one reply into {@code ctx.out()} (a value or an error such as WRONGTYPE) and
     * returns true. Returns false, without claiming, when there is nothing to serve yet.
     */
    boolean tryServe(ServeContext ctx);

    /** The reply when the timeout expires (a null array for every list command in Redis 7.0). */
    void timeoutReply(ReplyBuffer out);

    /**
     * The reply when the client may not block (inside MULTI/EXEC or a script, {@code Session.denyBlocking()}):
     * by default the timeout reply; BLMOVE answers a null bulk there, as Redis 7.0.
     */
    default void nonBlockingReply(ReplyBuffer out) {
        timeoutReply(out);
    }

    /**
     * Whether CLIENT UNBLOCK may end this wait. False for what Redis runs in place rather than as a blocked
     * client (DEBUG RELOAD's load): Redis answers CLIENT UNBLOCK 0 for it and the command answers when it ends.
     */
    default boolean clientUnblockable() {
        return true;
    }

    /**
     * Called once when the wait ends, whichever way (served, timed out, CLIENT UNBLOCK, disconnected, a role
     * change): an operation that registered itself elsewhere (WAIT's list of waiting clients) forgets it here.
     */
    default void ended() {
    }
}
