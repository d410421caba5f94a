package dev.spinel.client;

/** The command got no reply within its timeout; its reply, if it ever comes, is discarded. Immutable. */
public final class CommandTimeoutException extends SpinelException {
    public CommandTimeoutException(String message) {
        super(message);
    }
}
