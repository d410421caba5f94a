package dev.spinel.protocol;

/**
 * A request that cannot be parsed. The message is Redis's own text (for example
 * {@code "Protocol error: invalid bulk length"}); the connection that sent it is answered with
 * {@code -ERR <message>} and closed, as Redis does.
 */
public final class ProtocolException extends Exception {
    public ProtocolException(String message) {
        super(message, null, false, false);
    }
}
