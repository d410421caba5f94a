package dev.spinel.store;

/**
 * One key of a {@link Segment}'s chained hash table. With compact object headers and compressed
 * references an entry is 24 bytes: header, key, value, next, and an access stamp. The key's hash is
 * not stored (it would cost 8 bytes per key after alignment); lookups compare lengths first and
 * resizes recompute hashes. Keys with a time to live are
 * {@link VolatileEntry} instances, so keys without one pay nothing for expiry.
 *
 * <p>The value is a {@code byte[]} for strings or one of the collection types; see {@link ValueType}.
 *
 * <p>Guarded by the lock of the segment that holds it; never read or written without it.
 */
public class Entry {
    final byte[] key;
    Object value;
    Entry next;
    /** Seconds-resolution access clock (LRU) or Redis's LFU pair, per the eviction policy. */
    int access;

    Entry(byte[] key, Object value) {
        this.key = key;
        this.value = value;
    }

    public final byte[] key() {
        return key;
    }

    public final Object value() {
        return value;
    }

    /** Replaces the value in place (the caller holds the segment lock). */
    public final void value(Object v) {
        this.value = v;
    }

    public final int access() {
        return access;
    }

    public final void access(int stamp) {
        this.access = stamp;
    }

    /** Absolute expiry in Unix milliseconds, or -1 when the key has no time to live. */
    public long expireAt() {
        return -1;
    }

    final boolean isExpired(long now) {
        long at = expireAt();
        return at >= 0 && at <= now;
    }
}
