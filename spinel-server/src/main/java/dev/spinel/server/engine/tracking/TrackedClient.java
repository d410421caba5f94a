package dev.spinel.server.engine.tracking;

import dev.spinel.server.engine.pubsub.Subscriber;

/**
 * What CLIENT TRACKING needs of a client, beyond pushing to it as to a {@link Subscriber} (an invalidation
 * redirected to a RESP2 connection is a pub/sub message): its tracking options, its protocol, whose command
 * runs (a script's caller), and writing an invalidation after its own reply. The engine's session implements it.
 *
 * <p>Thread-safety: as the implementing session's; {@link #tracking()} is readable from any thread, the
 * {@code after...} methods are called as their Javadoc says.
 */
public interface TrackedClient extends Subscriber {
    /** Its CLIENT TRACKING options, or null when it does not track. */
    TrackingState tracking();

    /** Sets (or, with null, clears) its tracking options; only {@link Tracking} calls it. */
    void tracking(TrackingState state);

    /** The client whose script runs this (script) client's command, or null. */
    TrackedClient scriptCaller();

    /** The RESP version it speaks (2 or 3). */
    int protocol();

    /** Whether it is running EXEC's queued commands now. */
    boolean executingTransaction();

    /** Queues {@code write} for right after the reply of the command it runs (after EXEC's whole reply); on its own loop. */
    void afterReply(Runnable write);

    /** Queues {@code write} for right after its served blocked command's reply; from the serving thread. */
    void afterServedReply(Runnable write);
}
