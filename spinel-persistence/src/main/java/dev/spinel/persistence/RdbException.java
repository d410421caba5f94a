package dev.spinel.persistence;

/**
 * An RDB file or DUMP payload that cannot be read or written; the message says what and where. A short read
 * (the stream ended or failed before the RDB's end: a cut replication transfer) says so with
 * {@link #shortReadAt}, so a replica can tell a lost connection from a corrupt payload, as Redis does.
 */
public final class RdbException extends RuntimeException {
    private final long shortReadAt;

    public RdbException(String message) {
        this(message, null, -1);
    }

    public RdbException(String message, Throwable cause) {
        this(message, cause, -1);
    }

    private RdbException(String message, Throwable cause, long shortReadAt) {
        super(message, cause);
        this.shortReadAt = shortReadAt;
    }

    /** The input ended or failed at {@code offset} (bytes read so far) before the RDB did. */
    public static RdbException shortRead(String message, long offset, Throwable cause) {
        return new RdbException(message, cause, offset);
    }

    /** The offset where the input ended or failed, or -1 when the payload itself is at fault. */
    public long shortReadAt() {
        return shortReadAt;
    }
}
