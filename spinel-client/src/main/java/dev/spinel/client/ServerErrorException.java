package dev.spinel.client;

/**
 * The server answered the command with an error reply ({@code -ERR ...}, {@code -WRONGTYPE ...}).
 * The message is the server's text, unchanged. Immutable.
 */
public final class ServerErrorException extends SpinelException {
    public ServerErrorException(String message) {
        super(message);
    }

    /** The error code: the first word of the message ({@code ERR}, {@code WRONGTYPE}, {@code NOAUTH}...). */
    public String code() {
        String m = getMessage();
        int sp = m.indexOf(' ');
        return sp < 0 ? m : m.substring(0, sp);
    }
}
