package dev.spinel.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * An entry whose key (at most {@value #BASE_LENGTH} bytes) lives in its own fields: bytes 0-7 and 8-15 little
 * endian in two longs, bytes 16-18 in the low three bytes of an int whose bits 24-28 are the length (the top three
 * bits are an {@link InlineStringEntry}'s, masked off by {@link #KEY_BITS} when keys are compared). With compact
 * object headers the key part is 40 bytes (header 8, next 8, access stamp 4, key int 4, key longs 16), no padding.
 * Two families extend it: {@link Ref} refers to its value (48 bytes; keys of up to {@value #MAX_LENGTH}
 * bytes add bytes 19-26 in one more long, {@link WideKeyEntry}, 56 bytes), {@link InlineStringEntry} holds a short
 * string in its own fields (and a wide key's bytes 19-26 in its first word) and has no value reference. A lookup packs the probe key the same way once
 * ({@link #pack0} .. {@link #pack3}) and compares three or four words per entry of the chain, length included,
 * without touching another object.
 *
 * <p>Guarded by its segment's lock, as every {@link Entry}; the key fields are final.
 */
abstract sealed class InlineKeyEntry extends Entry permits InlineKeyEntry.Ref, InlineStringEntry {
    /** The longest key held in this class's fields. */
    static final int BASE_LENGTH = 19;
    /** The longest key held inline (in a {@link WideKeyEntry} beyond {@link #BASE_LENGTH}). */
    public static final int MAX_LENGTH = 27;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** Heap bytes of the fields up to the key's, with compact object headers: what every subclass adds to. */
    static final int SIZE = 40;
    /**
     * The bits of {@link #k2} that are the key's (bytes 16-18, and the length in bits 24-28); the top three
     * bits are free for an {@link InlineStringEntry}'s value length.
     */
    static final int KEY_BITS = 0x1FFFFFFF;

    final long k0;
    final long k1;
    final int k2;

    InlineKeyEntry(long k0, long k1, int k2) {
        this.k0 = k0;
        this.k1 = k1;
        this.k2 = k2;
    }

    /** Bytes {@code [from, from + 8)} of {@code b[off, off + len)}, little endian, zero past its end. */
    static long word(byte[] b, int off, int len, int from) {
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

    /** Bytes 16-18 and the length (top byte): equal words mean equal lengths. */
    static int pack2(byte[] b, int off, int len) {
        return (int) (word(b, off, len, 16) & 0xFFFFFF) | (len << 24);
    }

    /** Bytes 19-26 (a {@link WideKeyEntry}'s last word), zero for shorter keys. */
    static long pack3(byte[] b, int off, int len) {
        return word(b, off, len, BASE_LENGTH);
    }

    /** An entry for a key of at most {@link #MAX_LENGTH} bytes. */
    static InlineKeyEntry of(byte[] b, int off, int len, Object value, long expireAt) {
        return of(pack0(b, off, len), pack1(b, off, len), pack2(b, off, len), pack3(b, off, len), value, expireAt);
    }

    /**
     * An entry for a packed key ({@code k3} is read only for a wide key): an {@link InlineStringEntry} when the
     * value is a string short enough to be held in the entry too, else a {@link WideKeyEntry} for a wide key and a
     * {@link Ref} for a shorter one.
     */
    static InlineKeyEntry of(long k0, long k1, int k2, long k3, Object value, long expireAt) {
        int len = (k2 & KEY_BITS) >>> 24;
        if (value instanceof byte[] v && InlineStringEntry.fits(len, v.length)) {
            return InlineStringEntry.of(k0, k1, k2, k3, v, 0, v.length, expireAt);
        }
        if (len > BASE_LENGTH) {
            return expireAt >= 0 ? new WideKeyEntry.Volatile(k0, k1, k2, k3, value, expireAt)
                    : new WideKeyEntry(k0, k1, k2, k3, value);
        }
        return Ref.of(k0, k1, k2, value, expireAt);
    }

    /** True when this entry's kind would hold {@code value} in its own fields (a short enough string). */
    final boolean holdsInline(Object value) {
        return value instanceof byte[] v && InlineStringEntry.fits(keyLength(), v.length);
    }

    /**
     * A new entry for this key with {@code value} and this entry's expiry and access stamp: how a value changes
     * for an entry whose layout depends on it.
     */
    final InlineKeyEntry withValue(Object value) {
        InlineKeyEntry n = of(k0, k1, k2 & KEY_BITS, k3(), value, expireAt());
        n.access = access;
        return n;
    }

    /**
     * The key's bytes 19-26 (zero for a key of at most {@link #BASE_LENGTH} bytes): a {@link WideKeyEntry}'s
     * {@code k3}, or an {@link InlineStringEntry}'s first word. Class tests, not a virtual call, as {@link #ref()}.
     */
    final long k3() {
        if (((k2 & KEY_BITS) >>> 24) <= BASE_LENGTH) {
            return 0;
        }
        return this instanceof InlineStringEntry ? ((InlineStringEntry.S1) this).v0 : ((WideKeyEntry) this).k3;
    }

    /** Equal first three words mean equal lengths, so a probe longer than {@link #BASE_LENGTH} meets only wide entries. */
    final boolean keyIs(long p0, long p1, int p2, long p3) {
        return k0 == p0 && k1 == p1 && (k2 & KEY_BITS) == p2 && ((p2 >>> 24) <= BASE_LENGTH || k3() == p3);
    }

    private int byteAt(int i) {
        if (i >= BASE_LENGTH) {
            return (int) (k3() >>> ((i - BASE_LENGTH) << 3)) & 0xff;
        }
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
    public final byte[] keyBytes(byte[] scratch) {
        int len = keyLength();
        for (int i = 0; i < len; i++) {
            scratch[i] = (byte) byteAt(i);
        }
        return scratch;
    }

    @Override
    public final int keyLength() {
        return (k2 & KEY_BITS) >>> 24;
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
                if (len >= 24) { // bytes 16-18 from the int, 19-23 from the wide entry's last long
                    h = KeyHash.step(h, (k2 & 0xFFFFFFL) | (k3() << 24));
                    i = 24;
                }
            }
        }
        long tail = 0;
        for (; i < len; i++) {
            tail = (tail << 8) | byteAt(i);
        }
        return KeyHash.finish(h, tail);
    }

    /**
     * An {@link InlineKeyEntry} that refers to its value: a collection, a string too long (or too short: the empty
     * string) to be held in an {@link InlineStringEntry}, or a {@link GrowableString}; for a wide key, a
     * {@link WideKeyEntry}. 48 bytes with compact object headers (the key part and the reference), 56 with a
     * time to live ({@link Volatile}). The reference lives here and in {@link ArrayKeyEntry}, not in {@link Entry},
     * so that an entry holding its string in its own fields carries none.
     *
     * <p>Guarded by its segment's lock, as every {@link Entry}.
     */
    static sealed class Ref extends InlineKeyEntry permits Ref.Volatile, WideKeyEntry {
        /** Heap bytes of an instance (and of a {@link Volatile} one), with compact object headers. */
        static final int SIZE = InlineKeyEntry.SIZE + 8;
        static final int VOLATILE_SIZE = SIZE + 8;

        Object value;

        Ref(long k0, long k1, int k2, Object value) {
            super(k0, k1, k2);
            this.value = value;
        }

        static Ref of(long k0, long k1, int k2, Object value, long expireAt) {
            return expireAt >= 0 ? new Volatile(k0, k1, k2, value, expireAt) : new Ref(k0, k1, k2, value);
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
        static final class Volatile extends Ref {
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
}
