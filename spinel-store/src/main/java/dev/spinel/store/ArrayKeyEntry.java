package dev.spinel.store;

import java.util.Arrays;

/**
 * An entry whose key, longer than {@link InlineKeyEntry#MAX_LENGTH} bytes, is a {@code byte[]} of its own
 * (40 bytes with compact headers and 8-byte references, plus the array). Guarded by its segment's lock.
 */
sealed class ArrayKeyEntry extends Entry permits ArrayKeyEntry.Volatile {
    static final int SIZE = 40;
    static final int VOLATILE_SIZE = 48;

    final byte[] key;
    Object value;

    ArrayKeyEntry(byte[] key, Object value) {
        this.key = key;
        this.value = value;
    }

    static ArrayKeyEntry of(byte[] key, Object value, long expireAt) {
        return expireAt >= 0 ? new Volatile(key, value, expireAt) : new ArrayKeyEntry(key, value);
    }

    final boolean keyIs(byte[] buf, int off, int len) {
        return key.length == len && Arrays.equals(key, 0, len, buf, off, off + len);
    }

    @Override
    public final byte[] key() {
        return key;
    }

    @Override
    public final byte[] keyBytes(byte[] scratch) {
        return key;
    }

    @Override
    public final int keyLength() {
        return key.length;
    }

    @Override
    final int keyHash() {
        return KeyHash.hash(key);
    }

    @Override
    int footprint() {
        return SIZE + (int) Sizes.array(key.length);
    }

    @Override
    final Entry withExpire(long expireAt) {
        Entry n = of(key, value, expireAt);
        n.access = access;
        return n;
    }

    /** An array-key entry with a time to live. */
    static final class Volatile extends ArrayKeyEntry {
        long expireAt;

        Volatile(byte[] key, Object value, long expireAt) {
            super(key, value);
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
            return VOLATILE_SIZE + (int) Sizes.array(key.length);
        }
    }
}
