package dev.spinel.persistence;

/** An RDB file or DUMP payload that cannot be read or written; the message says what and where. */
public final class RdbException extends RuntimeException {
    public RdbException(String message) {
        super(message);
    }

    public RdbException(String message, Throwable cause) {
        super(message, cause);
    }
}
