package dev.spinel.store;

/**
 * INCR and DECR's counters read and written without an intermediate array: the stored string is parsed where it is
 * (in the entry's own fields for a key of up to 27 bytes, {@link InlineStringEntry}), and the new value's digits are packed
 * straight into the new entry's words, so a counter update allocates that entry and nothing else (it took a copy of
 * the old digits and an array of the new ones as well).
 *
 * <p>Thread-safety: stateless; the caller holds the segment's lock.
 */
public final class Counters {
    private Counters() {
    }

    /**
     * The string value as a signed 64-bit integer, with the rules of Redis's {@code string2ll} (as
     * {@code Numbers.parseLong} of the protocol module: an optional '-', no leading zeros, no spaces, at most 20
     * bytes). The entry must hold a string ({@link Entry#isString()}).
     *
     * @throws NumberFormatException if the bytes are not such an integer or overflow
     */
    public static long parse(Entry e) {
        int len = e.stringLength();
        if (len == 0 || len > 20) {
            throw new NumberFormatException();
        }
        if (len == 1 && e.stringByte(0) == '0') {
            return 0;
        }
        int p = 0;
        boolean negative = e.stringByte(0) == '-';
        if (negative && ++p == len) {
            throw new NumberFormatException();
        }
        int first = e.stringByte(p) - '0';
        if (first < 1 || first > 9) {
            throw new NumberFormatException();
        }
        long v = 0; // accumulated negatively so that Long.MIN_VALUE fits
        final long multmin = Long.MIN_VALUE / 10;
        for (; p < len; p++) {
            int d = e.stringByte(p) - '0';
            if (d < 0 || d > 9 || v < multmin) {
                throw new NumberFormatException();
            }
            v *= 10;
            if (v < Long.MIN_VALUE + d) {
                throw new NumberFormatException();
            }
            v -= d;
        }
        if (negative) {
            return v;
        }
        if (v == Long.MIN_VALUE) {
            throw new NumberFormatException();
        }
        return -v;
    }

    /**
     * Replaces {@code e}'s value with the decimal digits of {@code v}, keeping its time to live and access stamp, as
     * {@link Segment#replaceValue} does; returns the entry now holding the key.
     */
    public static Entry replace(Segment seg, Entry e, long v) {
        if (e instanceof InlineKeyEntry k) {
            return seg.swapString(e, entry(k.k0, k.k1, k.k2, k.k3(), v, e.expireAt()));
        }
        return seg.replaceValue(e, digits(v));
    }

    /** Inserts the absent key {@code buf[off, off + len)} with the decimal digits of {@code v}, no time to live. */
    public static Entry insert(Segment seg, byte[] buf, int off, int len, int hash, long v) {
        if (len <= InlineKeyEntry.MAX_LENGTH) {
            return seg.addNew(entry(InlineKeyEntry.pack0(buf, off, len), InlineKeyEntry.pack1(buf, off, len),
                    InlineKeyEntry.pack2(buf, off, len), InlineKeyEntry.pack3(buf, off, len), v, -1), hash, -1);
        }
        return seg.insert(buf, off, len, hash, digits(v), -1);
    }

    /** Characters of {@code v} in decimal, its sign included (1 to 20). */
    static int length(long v) {
        int n = v < 0 ? 2 : 1;
        for (long r = v < 0 ? v : -v; r <= -10; r /= 10) {
            n++;
        }
        return n;
    }

    private static byte[] digits(long v) {
        int len = length(v);
        byte[] b = new byte[len];
        long r = v < 0 ? v : -v; // negative, so that Long.MIN_VALUE has digits too
        for (int i = len - 1; i >= (v < 0 ? 1 : 0); i--, r /= 10) {
            b[i] = (byte) ('0' - r % 10);
        }
        if (v < 0) {
            b[0] = '-';
        }
        return b;
    }

    /** An entry holding the digits of {@code v} in its words: byte {@code i} of the string is byte {@code i % 8} of word {@code i / 8}. */
    private static InlineStringEntry entry(long k0, long k1, int k2, long k3, long v, long expireAt) {
        int len = length(v);
        long w0 = 0;
        long w1 = 0;
        long w2 = 0;
        long r = v < 0 ? v : -v;
        for (int i = len - 1; i >= 0; i--) {
            long c;
            if (i == 0 && v < 0) {
                c = '-';
            } else {
                c = '0' - r % 10;
                r /= 10;
            }
            long shifted = c << ((i & 7) << 3);
            switch (i >>> 3) {
                case 0 -> w0 |= shifted;
                case 1 -> w1 |= shifted;
                default -> w2 |= shifted;
            }
        }
        if (((k2 & InlineKeyEntry.KEY_BITS) >>> 24) > InlineKeyEntry.BASE_LENGTH) { // a wide key's last word first
            return InlineStringEntry.of(k0, k1, k2, len, k3, w0, w1, w2, 0, 0, expireAt);
        }
        return InlineStringEntry.of(k0, k1, k2, len, w0, w1, w2, 0, 0, 0, expireAt);
    }
}
