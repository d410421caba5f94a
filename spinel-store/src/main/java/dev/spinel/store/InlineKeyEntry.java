package dev.spinel.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * An entry whose key (at most {@value #MAX_LENGTH} bytes) lives in its own fields: bytes 0-7 and 8-15 little
 * endian in two longs, bytes 16-18 in the low three bytes of an int whose top byte is the length. With compact
 * object headers that is 48 bytes (header 8, access stamp 4, key int 4, value 8, next 8, key longs 16), no
 * padding, where an entry plus a key array took 72 for a 14-byte key. A lookup packs the probe key the same
 * way once ({@link #pack0}, {@link #pack1}, {@link #pack2}) and compares three words per entry of the chain,
 * length included, without touching another object.
 *
 * <p>Guarded by its segment's lock, as every {@link Entry}; the key fields are final.
 */
sealed class InlineKeyEntry extends Entry permits InlineKeyEntry.Volatile {
    /** The longest key held inline. */
    public static final int MAX_LENGTH = 19;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** Heap bytes of an instance (and of a {@link Volatile} one), with compact object headers. */
    static final int SIZE = 48;
    static final int VOLATILE_SIZE = 56;

    final long k0;
    final long k1;
    final int k2;

    InlineKeyEntry(long k0, long k1, int k2, Object value) {
        super(value);
        this.k0 = k0;
        this.k1 = k1;
        this.k2 = k2;
    }

    /** Bytes {@code [from, from + 8)} of the key, little endian, zero past its end. */
    private static long word(byte[] b, int off, int len, int from) {
        int n = Math.min(8, len - from);
        if (n <= 0) {
            return 0;
        }
        if (n == 8) {
            return (long) LONGS.get(b, off + from);
        }
        long w = 0;
        for (int j = n - 1; j >= 0; j--) {
            w = (w << 8) | (b[off + from + j] & 0xff);
        }
        return w;
    }

    static long pack0(byte[] b, int off, int len) {
        return word(b, off, len, 0);
    }

    static long pack1(byte[] b, int off, int len) {
        return word(b, off, len, 8);
    }

    /** Bytes 16-18 and the length (top byte): equal packs mean equal keys of equal length. */
    static int pack2(byte[] b, int off, int len) {
        return (int) word(b, off, len, 16) | (len << 24);
    }

    static InlineKeyEntry of(byte[] b, int off, int len, Object value, long expireAt) {
        long k0 = pack0(b, off, len);
        long k1 = pack1(b, off, len);
        int k2 = pack2(b, off, len);
        return expireAt >= 0 ? new Volatile(k0, k1, k2, value, expireAt) : new InlineKeyEntry(k0, k1, k2, value);
    }

    final boolean keyIs(long p0, long p1, int p2) {
        return k0 == p0 && k1 == p1 && k2 == p2;
    }

    private int byteAt(int i) {
        long w = i < 8 ? k0 : i < 16 ? k1 : k2;
        return (int) (w >>> ((i & 7) << 3)) & 0xff;
    }

    @Override
    public final byte[] key() {
        int len = keyLength();
        byte[] key = new byte[len];
        for (int i = 0; i < len; i++) {
            key[i] = (byte) byteAt(i);
        }
        return key;
    }

    @Override
    public final int keyLength() {
        return k2 >>> 24;
    }

    @Override
    final int keyHash() {
        int len = keyLength();
        long h = KeyHash.start(len);
        int i = 0;
        if (len >= 8) {
            h = KeyHash.step(h, k0);
            i = 8;
            if (len >= 16) {
                h = KeyHash.step(h, k1);
                i = 16;
            }
        }
        long tail = 0;
        for (; i < len; i++) {
            tail = (tail << 8) | byteAt(i);
        }
        return KeyHash.finish(h, tail);
    }

    @Override
    int footprint() {
        return SIZE;
    }

    @Override
    final Entry withExpire(long expireAt) {
        Entry n = expireAt >= 0 ? new Volatile(k0, k1, k2, value, expireAt) : new InlineKeyEntry(k0, k1, k2, value);
        n.access = access;
        return n;
    }

    /** An inline-key entry with a time to live. */
    static final class Volatile extends InlineKeyEntry {
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
        int footprint() {
            return VOLATILE_SIZE;
        }
    }
}
