package dev.spinel.client;

/**
 * The connection failed or was lost. A command that fails with this after it was written may or may
 * not have been executed by the server. Immutable.
 */
public final class ConnectionException extends SpinelException {
    public ConnectionException(String message) {
        super(message);
    }

    public ConnectionException(String message, Throwable cause) {
        super(message, cause);
    }
}
