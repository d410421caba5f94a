package dev.spinel.store.types;

import java.nio.charset.StandardCharsets;

/**
 * Canonical 64-bit integer strings, as Redis's {@code string2ll} accepts them (no '+', no leading
 * zeros, no spaces): the test for whether a set member can live in an intset. Stateless.
 */
final class CanonicalInts {
    private CanonicalInts() {
    }

    /** Parses a canonical integer; throws {@link NumberFormatException} otherwise. */
    static long parse(byte[] b, int off, int len) {
        if (len == 0 || len > 20) {
            throw new NumberFormatException();
        }
        if (len == 1 && b[off] == '0') {
            return 0;
        }
        int p = off;
        int end = off + len;
        boolean neg = b[p] == '-';
        if (neg && ++p == end) {
            throw new NumberFormatException();
        }
        if (b[p] < '1' || b[p] > '9') {
            throw new NumberFormatException();
        }
        long v = 0; // accumulated negatively so that Long.MIN_VALUE fits
        for (; p < end; p++) {
            int d = b[p] - '0';
            if (d < 0 || d > 9 || v < Long.MIN_VALUE / 10) {
                throw new NumberFormatException();
            }
            v *= 10;
            if (v < Long.MIN_VALUE + d) {
                throw new NumberFormatException();
            }
            v -= d;
        }
        if (neg) {
            return v;
        }
        if (v == Long.MIN_VALUE) {
            throw new NumberFormatException();
        }
        return -v;
    }

    static boolean isCanonical(byte[] b, int off, int len) {
        try {
            parse(b, off, len);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    static byte[] toBytes(long v) {
        return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
    }
}
