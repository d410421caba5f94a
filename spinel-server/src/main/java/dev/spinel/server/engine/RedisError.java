package dev.spinel.server.engine;

/**
 * A command's error reply, thrown by command code before it writes any part of its reply and
 * answered by the dispatcher. The message carries Redis's code and text, e.g.
 * {@code "ERR syntax error"}. Stackless: errors are ordinary replies, not exceptional events.
 */
public final class RedisError extends RuntimeException {
    public RedisError(String message) {
        super(message, null, false, false);
    }

    /** The error code (first word), for INFO errorstats. */
    public String code() {
        String m = getMessage();
        int sp = m.indexOf(' ');
        return sp < 0 ? m : m.substring(0, sp);
    }
}
