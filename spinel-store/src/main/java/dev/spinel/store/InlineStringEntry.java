package dev.spinel.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * An inline-key entry (key of at most {@value InlineKeyEntry#MAX_LENGTH} bytes) whose string value, 1 to
 * {@value #MAX_LENGTH} bytes ({@value #MAX_WIDE_LENGTH} for a key of more than {@value InlineKeyEntry#BASE_LENGTH}),
 * lives in the entry's own final {@code long} fields too, as Redis's embstr keeps a short string in the same
 * allocation as its object header. One class per number of words ({@link S1} .. {@link S6}, each extending the
 * previous one, so that word {@code i} is a field of every class from {@code S(i+1)} on), each with a
 * {@code Volatile} subclass for a time to live. A 32-byte value costs 32 bytes in the entry instead of a reference
 * to a 48-byte array: 72 bytes for a 14-byte key where an entry and its value took 96 (docs/memory.md, step 3 and
 * round 8).
 *
 * <p>A wide key (20 to {@value InlineKeyEntry#MAX_LENGTH} bytes) keeps its last eight bytes, what a
 * {@link WideKeyEntry}'s {@code k3} holds, in word 0 ({@link S1#v0}), and the value in the words after it
 * ({@link #keyWords()}): a 22-byte key with a 32-byte value is an {@link S5} of 80 bytes where a
 * {@link WideKeyEntry} and its value array took 104 (docs/memory.md, round 9). No class more: which word the value
 * starts at follows from the key's length in {@link #k2}.
 *
 * <p>The value's length is the class's word count (less the key's word) and, in the top three bits of
 * {@link #k2} (which the key does not use), its length minus one modulo 8. There is no value reference
 * ({@link Entry#ref()} is {@code null}): {@link Entry#value()} returns a copy of the bytes, and readers that need no
 * array ({@code GET}) use {@link Entry#stringLength()} and {@link Entry#copyString}. The value fields are final: a
 * new value makes a new entry ({@link Segment#replaceValue}), so a snapshot may keep the entry itself as its copy of
 * the value ({@link Entry#storedValue()}).
 *
 * <p>Guarded by its segment's lock, as every {@link Entry}; the key and value fields are final.
 */
abstract sealed class InlineStringEntry extends InlineKeyEntry permits InlineStringEntry.S1 {
    /** The longest string value held in an entry's fields. */
    static final int MAX_LENGTH = 8 * 6;
    /** The longest string value held in the fields of an entry of a wide key (one word is the key's). */
    static final int MAX_WIDE_LENGTH = MAX_LENGTH - 8;
    private static final int REMAINDER_SHIFT = 29;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    InlineStringEntry(long k0, long k1, int k2) {
        super(k0, k1, k2);
    }

    /** True when a string value of {@code length} bytes of a key of {@code keyLength} bytes is held in the entry. */
    static boolean fits(int keyLength, int length) {
        return length >= 1 && (keyLength <= BASE_LENGTH ? length <= MAX_LENGTH
                : keyLength <= InlineKeyEntry.MAX_LENGTH && length <= MAX_WIDE_LENGTH);
    }

    /** An entry for the key {@code b[off, off + len)} and the value {@code v[voff, voff + vlen)}, which {@link #fits} it. */
    static InlineStringEntry of(byte[] b, int off, int len, byte[] v, int voff, int vlen, long expireAt) {
        return of(pack0(b, off, len), pack1(b, off, len), pack2(b, off, len), pack3(b, off, len), v, voff, vlen, expireAt);
    }

    /**
     * An entry for the packed key {@code k0, k1, k2} (and {@code k3} when it is wide; ignored otherwise) and the value
     * {@code v[off, off + len)}, which {@link #fits} that key.
     */
    static InlineStringEntry of(long k0, long k1, int k2, long k3, byte[] v, int off, int len, long expireAt) {
        if (((k2 & KEY_BITS) >>> 24) > BASE_LENGTH) {
            return of(k0, k1, k2, len, k3, word(v, off, len, 0), word(v, off, len, 8), word(v, off, len, 16),
                    word(v, off, len, 24), word(v, off, len, 32), expireAt);
        }
        return of(k0, k1, k2, len, word(v, off, len, 0), word(v, off, len, 8), word(v, off, len, 16),
                word(v, off, len, 24), word(v, off, len, 32), word(v, off, len, 40), expireAt);
    }

    /**
     * An entry for the packed key {@code k0, k1, k2} and a value of {@code len} bytes given as the entry's words
     * {@code w0 .. w5}: the value's from {@code w0} for a key of at most {@link #BASE_LENGTH} bytes, the key's last
     * word then the value's for a wide key.
     */
    static InlineStringEntry of(long k0, long k1, int k2, int len, long w0, long w1, long w2, long w3, long w4, long w5,
                                long expireAt) {
        int k = (k2 & KEY_BITS) | (((len - 1) & 7) << REMAINDER_SHIFT);
        boolean timed = expireAt >= 0;
        return switch (((len + 7) >>> 3) + (((k2 & KEY_BITS) >>> 24) > BASE_LENGTH ? 1 : 0)) {
            case 1 -> timed ? new S1.Volatile(k0, k1, k, w0, expireAt) : new S1(k0, k1, k, w0);
            case 2 -> timed ? new S2.Volatile(k0, k1, k, w0, w1, expireAt) : new S2(k0, k1, k, w0, w1);
            case 3 -> timed ? new S3.Volatile(k0, k1, k, w0, w1, w2, expireAt) : new S3(k0, k1, k, w0, w1, w2);
            case 4 -> timed ? new S4.Volatile(k0, k1, k, w0, w1, w2, w3, expireAt) : new S4(k0, k1, k, w0, w1, w2, w3);
            case 5 -> timed ? new S5.Volatile(k0, k1, k, w0, w1, w2, w3, w4, expireAt) : new S5(k0, k1, k, w0, w1, w2, w3, w4);
            case 6 -> timed ? new S6.Volatile(k0, k1, k, w0, w1, w2, w3, w4, w5, expireAt) : new S6(k0, k1, k, w0, w1, w2, w3, w4, w5);
            default -> throw new IllegalArgumentException("string of " + len + " bytes is not held inline");
        };
    }

    /** Words this class holds: the value's, and for a wide key the key's last one first. */
    abstract int words();

    /** Words before the value's: 1 for a wide key (its bytes 19-26 are word 0), 0 otherwise. */
    final int keyWords() {
        return ((k2 & KEY_BITS) >>> 24) > BASE_LENGTH ? 1 : 0;
    }

    /** Word {@code i} of the entry (little endian; zero past the value's end); the value's first is {@link #keyWords()}. */
    final long word(int i) {
        return switch (i) {
            case 0 -> ((S1) this).v0;
            case 1 -> ((S2) this).v1;
            case 2 -> ((S3) this).v2;
            case 3 -> ((S4) this).v3;
            case 4 -> ((S5) this).v4;
            default -> ((S6) this).v5;
        };
    }

    final int valueLength() {
        return ((words() - keyWords() - 1) << 3) + ((k2 >>> REMAINDER_SHIFT) & 7) + 1;
    }

    final int valueByte(int i) {
        return (int) (word((i >>> 3) + keyWords()) >>> ((i & 7) << 3)) & 0xff;
    }

    /** Writes the value's bytes to {@code dst[off, off + valueLength())}. */
    final void copyValue(byte[] dst, int off) {
        int first = keyWords();
        int len = ((words() - first - 1) << 3) + ((k2 >>> REMAINDER_SHIFT) & 7) + 1;
        int i = 0;
        for (; i + 8 <= len; i += 8) {
            LONGS.set(dst, off + i, word((i >>> 3) + first));
        }
        if (i < len) {
            long w = word((i >>> 3) + first);
            for (; i < len; i++, w >>>= 8) {
                dst[off + i] = (byte) w;
            }
        }
    }

    @Override
    final int footprint() {
        return SIZE + 8 * words() + (expireAt() >= 0 ? 8 : 0);
    }

    /** A value of 1 to 8 bytes (none for a wide key: its word 0 is the key's). */
    static sealed class S1 extends InlineStringEntry permits S1.Volatile, S2 {
        final long v0;

        S1(long k0, long k1, int k2, long v0) {
            super(k0, k1, k2);
            this.v0 = v0;
        }

        @Override
        int words() {
            return 1;
        }

        @Override
        Entry withExpire(long expireAt) {
            Entry n = expireAt >= 0 ? new Volatile(k0, k1, k2, v0, expireAt) : new S1(k0, k1, k2, v0);
            n.access = access;
            return n;
        }

        /** With a time to live. */
        static final class Volatile extends S1 {
            long expireAt;

            Volatile(long k0, long k1, int k2, long v0, long expireAt) {
                super(k0, k1, k2, v0);
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
        }
    }

    /** A value of 9 to 16 bytes (1 to 8 for a wide key). */
    static sealed class S2 extends S1 permits S2.Volatile, S3 {
        final long v1;

        S2(long k0, long k1, int k2, long v0, long v1) {
            super(k0, k1, k2, v0);
            this.v1 = v1;
        }

        @Override
        int words() {
            return 2;
        }

        @Override
        Entry withExpire(long expireAt) {
            Entry n = expireAt >= 0 ? new Volatile(k0, k1, k2, v0, v1, expireAt) : new S2(k0, k1, k2, v0, v1);
            n.access = access;
            return n;
        }

        /** With a time to live. */
        static final class Volatile extends S2 {
            long expireAt;

            Volatile(long k0, long k1, int k2, long v0, long v1, long expireAt) {
                super(k0, k1, k2, v0, v1);
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
        }
    }

    /** A value of 17 to 24 bytes (9 to 16 for a wide key). */
    static sealed class S3 extends S2 permits S3.Volatile, S4 {
        final long v2;

        S3(long k0, long k1, int k2, long v0, long v1, long v2) {
            super(k0, k1, k2, v0, v1);
            this.v2 = v2;
        }

        @Override
        int words() {
            return 3;
        }

        @Override
        Entry withExpire(long expireAt) {
            Entry n = expireAt >= 0 ? new Volatile(k0, k1, k2, v0, v1, v2, expireAt) : new S3(k0, k1, k2, v0, v1, v2);
            n.access = access;
            return n;
        }

        /** With a time to live. */
        static final class Volatile extends S3 {
            long expireAt;

            Volatile(long k0, long k1, int k2, long v0, long v1, long v2, long expireAt) {
                super(k0, k1, k2, v0, v1, v2);
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
        }
    }

    /** A value of 25 to 32 bytes (17 to 24 for a wide key). */
    static sealed class S4 extends S3 permits S4.Volatile, S5 {
        final long v3;

        S4(long k0, long k1, int k2, long v0, long v1, long v2, long v3) {
            super(k0, k1, k2, v0, v1, v2);
            this.v3 = v3;
        }

        @Override
        int words() {
            return 4;
        }

        @Override
        Entry withExpire(long expireAt) {
            Entry n = expireAt >= 0 ? new Volatile(k0, k1, k2, v0, v1, v2, v3, expireAt) : new S4(k0, k1, k2, v0, v1, v2, v3);
            n.access = access;
            return n;
        }

        /** With a time to live. */
        static final class Volatile extends S4 {
            long expireAt;

            Volatile(long k0, long k1, int k2, long v0, long v1, long v2, long v3, long expireAt) {
                super(k0, k1, k2, v0, v1, v2, v3);
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
        }
    }

    /** A value of 33 to 40 bytes (25 to 32 for a wide key). */
    static sealed class S5 extends S4 permits S5.Volatile, S6 {
        final long v4;

        S5(long k0, long k1, int k2, long v0, long v1, long v2, long v3, long v4) {
            super(k0, k1, k2, v0, v1, v2, v3);
            this.v4 = v4;
        }

        @Override
        int words() {
            return 5;
        }

        @Override
        Entry withExpire(long expireAt) {
            Entry n = expireAt >= 0 ? new Volatile(k0, k1, k2, v0, v1, v2, v3, v4, expireAt) : new S5(k0, k1, k2, v0, v1, v2, v3, v4);
            n.access = access;
            return n;
        }

        /** With a time to live. */
        static final class Volatile extends S5 {
            long expireAt;

            Volatile(long k0, long k1, int k2, long v0, long v1, long v2, long v3, long v4, long expireAt) {
                super(k0, k1, k2, v0, v1, v2, v3, v4);
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
        }
    }

    /** A value of 41 to 48 bytes (33 to 40 for a wide key). */
    static sealed class S6 extends S5 permits S6.Volatile {
        final long v5;

        S6(long k0, long k1, int k2, long v0, long v1, long v2, long v3, long v4, long v5) {
            super(k0, k1, k2, v0, v1, v2, v3, v4);
            this.v5 = v5;
        }

        @Override
        int words() {
            return 6;
        }

        @Override
        Entry withExpire(long expireAt) {
            Entry n = expireAt >= 0 ? new Volatile(k0, k1, k2, v0, v1, v2, v3, v4, v5, expireAt) : new S6(k0, k1, k2, v0, v1, v2, v3, v4, v5);
            n.access = access;
            return n;
        }

        /** With a time to live. */
        static final class Volatile extends S6 {
            long expireAt;

            Volatile(long k0, long k1, int k2, long v0, long v1, long v2, long v3, long v4, long v5, long expireAt) {
                super(k0, k1, k2, v0, v1, v2, v3, v4, v5);
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
        }
    }
}
