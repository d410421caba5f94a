package dev.spinel.server.engine.pubsub;

import dev.spinel.server.engine.clients.Client;

/**
 * What publish/subscribe needs of a subscribing client, beyond what any {@link Client} offers: its own
 * subscriptions, pushing a message into its replies, closing it when its output grows past its limit. The
 * engine's session implements it.
 *
 * <p>Thread-safety: as the implementing session's; everything but {@link #executingOn} and {@link #kill} is
 * called on the subscriber's own event loop (PubSub delivers there).
 */
public interface Subscriber extends Client {
    /** Its subscriptions, created on first use. */
    Subscriptions subscriptions();

    /** Whether it has any subscription (without creating the set). */
    boolean hasSubscriptions();

    /** Starts a push message (RESP3 {@code >}, RESP2 an array) written outside a command's reply. */
    void beginPush();

    /** Ends the push message begun by {@link #beginPush}. */
    void endPush();

    /** Closes the client (its output passed the pubsub class's limit). */
    void kill();

    /** The thread running a command of this client now, or null. */
    Thread executingOn();
}
