package dev.spinel.store.types;

/**
 * The encoding thresholds of the collection types, read from the server's configuration
 * ({@code list-max-listpack-size}, {@code hash-max-listpack-entries}, {@code hash-max-listpack-value}).
 * The store does not depend on the server module: the server passes an implementation that reads its
 * live configuration, so CONFIG SET takes effect for the next write, as in Redis.
 *
 * <p>Thread-safety: implementations must be safe to call from any thread (volatile reads).
 */
public interface CollectionSettings {
    /** Redis's defaults: list-max-listpack-size -2, hash-max-listpack-entries 512, hash-max-listpack-value 64. */
    CollectionSettings DEFAULTS = new CollectionSettings() {
        @Override
        public long listMaxListpackSize() {
            return -2;
        }

        @Override
        public long hashMaxListpackEntries() {
            return 512;
        }

        @Override
        public long hashMaxListpackValue() {
            return 64;
        }
    };

    /** Positive: entries per compact node; -1..-5: 4, 8, 16, 32, 64 KiB per node. */
    long listMaxListpackSize();

    long hashMaxListpackEntries();

    long hashMaxListpackValue();

    /** {@code stream-node-max-bytes}: a stream starts a new node before its listpack reaches it (0 = no limit). */
    default long streamNodeMaxBytes() {
        return 4096;
    }

    /** {@code stream-node-max-entries}: entries (deleted ones included) per stream node (0 = no limit). */
    default long streamNodeMaxEntries() {
        return 100;
    }

    /** The byte limit of a compact list for a negative {@code list-max-listpack-size}, as Redis's quicklist. */
    static int listpackBytesLimit(long fill) {
        int idx = (int) Math.min(5, Math.max(1, -fill));
        return 4096 << (idx - 1);
    }
}
