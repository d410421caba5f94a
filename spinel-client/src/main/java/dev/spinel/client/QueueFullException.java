package dev.spinel.client;

/**
 * Back-pressure: the connection already has {@link ClientOptions#maxInFlight()} commands queued or
 * awaiting replies. The command was not sent; retry later or slow down. Immutable.
 */
public final class QueueFullException extends SpinelException {
    public QueueFullException(String message) {
        super(message);
    }
}
