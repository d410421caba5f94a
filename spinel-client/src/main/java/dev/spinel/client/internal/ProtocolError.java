package dev.spinel.client.internal;

/** The server sent bytes that are not RESP; the connection is closed and reopened. Immutable. */
public final class ProtocolError extends RuntimeException {
    public ProtocolError(String message) {
        super(message);
    }
}
