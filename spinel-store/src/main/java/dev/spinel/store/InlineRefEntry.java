package dev.spinel.store;

/**
 * An {@link InlineKeyEntry} that refers to its value: a collection, a string too long (or too short: the empty
 * string) to be held in an {@link InlineStringEntry}, a {@link GrowableString}, or any value of a
 * {@link WideKeyEntry}'s key. 48 bytes with compact object headers (the key part and the reference), 56 with a
 * time to live ({@link Volatile}). The reference lives here and in {@link ArrayKeyEntry}, not in {@link Entry},
 * so that an entry holding its string in its own fields carries none.
 *
 * <p>Guarded by its segment's lock, as every {@link Entry}.
 */
sealed class InlineRefEntry extends InlineKeyEntry permits InlineRefEntry.Volatile, WideKeyEntry {
    /** Heap bytes of an instance (and of a {@link Volatile} one), with compact object headers. */
    static final int SIZE = InlineKeyEntry.SIZE + 8;
    static final int VOLATILE_SIZE = SIZE + 8;

    Object value;

    InlineRefEntry(long k0, long k1, int k2, Object value) {
        super(k0, k1, k2);
        this.value = value;
    }

    static InlineRefEntry of(long k0, long k1, int k2, Object value, long expireAt) {
        return expireAt >= 0 ? new Volatile(k0, k1, k2, value, expireAt) : new InlineRefEntry(k0, k1, k2, value);
    }

    @Override
    int footprint() {
        return SIZE;
    }

    @Override
    Entry withExpire(long expireAt) {
        Entry n = of(k0, k1, k2, value, expireAt);
        n.access = access;
        return n;
    }

    /** An inline-key entry with a value reference and a time to live. */
    static final class Volatile extends InlineRefEntry {
        long expireAt;

        Volatile(long k0, long k1, int k2, Object value, long expireAt) {
            super(k0, k1, k2, value);
            this.expireAt = expireAt;
        }

        @Override
        public long expireAt() {
            return expireAt;
        }

        @Override
        void expireAt(long at) {
            expireAt = at;
        }

        @Override
        int footprint() {
            return VOLATILE_SIZE;
        }
    }
}
