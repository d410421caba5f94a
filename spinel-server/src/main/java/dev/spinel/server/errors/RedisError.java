package dev.spinel.server.errors;

/**
 * A command's error reply, thrown by command code before it writes any part of its reply and
 * answered by the dispatcher. The message carries Redis's code and text, e.g.
 * {@code "ERR syntax error"}. Stackless: errors are ordinary replies, not exceptional events.
 */
public final class RedisError extends RuntimeException {
    private final boolean statsCounted;

    public RedisError(String message) {
        this(message, false);
    }

    /**
     * @param statsCounted whether INFO errorstats already counted this error where it happened (a script's reply
     *                     that is the error of a command it called, as Redis's ignore_error_stats_update marks it)
     */
    public RedisError(String message, boolean statsCounted) {
        super(message, null, false, false);
        this.statsCounted = statsCounted;
    }

    public boolean statsCounted() {
        return statsCounted;
    }

    /** The error code (first word), for INFO errorstats. */
    public String code() {
        String m = getMessage();
        int sp = m.indexOf(' ');
        return sp < 0 ? m : m.substring(0, sp);
    }
}
