package dev.spinel.client;

/** Base of every failure the client reports (unchecked). Immutable. */
public class SpinelException extends RuntimeException {
    public SpinelException(String message) {
        super(message);
    }

    public SpinelException(String message, Throwable cause) {
        super(message, cause);
    }
}
