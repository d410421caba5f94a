package dev.spinel.store;

/**
 * An {@link InlineKeyEntry.Ref} for a key of 20 to {@value InlineKeyEntry#MAX_LENGTH} bytes: bytes 19-26 in one more
 * long, 56 bytes in all (an entry plus a key array took 80 for such a key). Guarded by its segment's lock.
 */
sealed class WideKeyEntry extends InlineKeyEntry.Ref permits WideKeyEntry.Volatile {
    static final int SIZE = 56;
    static final int VOLATILE_SIZE = 64;

    final long k3;

    WideKeyEntry(long k0, long k1, int k2, long k3, Object value) {
        super(k0, k1, k2, value);
        this.k3 = k3;
    }

    @Override
    int footprint() {
        return SIZE;
    }

    @Override
    Entry withExpire(long expireAt) {
        Entry n = expireAt >= 0 ? new Volatile(k0, k1, k2, k3, value, expireAt) : new WideKeyEntry(k0, k1, k2, k3, value);
        n.access = access;
        return n;
    }

    /** A wide inline-key entry with a time to live. */
    static final class Volatile extends WideKeyEntry {
        long expireAt;

        Volatile(long k0, long k1, int k2, long k3, Object value, long expireAt) {
            super(k0, k1, k2, k3, value);
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
