package dev.spinel.store.types;

import java.util.Arrays;

/**
 * A lexicographic interval of ZRANGEBYLEX/ZLEXCOUNT/ZREMRANGEBYLEX (Redis's {@code zlexrangespec}).
 * {@code min == null} with {@code minInfinite} means "-" (or "+" as min: nothing is above it), and
 * likewise for max. Members compare as unsigned bytes (memcmp). Immutable.
 */
public record LexRange(byte[] min, boolean minExclusive, int minInfinity, byte[] max, boolean maxExclusive,
                       int maxInfinity) {
    /** Infinity markers: 0 = a real bound, -1 = "-", +1 = "+". */
    public static final int NEG = -1;
    public static final int POS = 1;

    static int compare(byte[] a, int aInf, byte[] b, int bInf) {
        if (aInf != 0 || bInf != 0) {
            return Integer.compare(aInf, bInf);
        }
        return Arrays.compareUnsigned(a, b);
    }

    /** A bound comparison on a slice {@code b[from, to)} (members packed in a listpack). */
    private static int compare(byte[] b, int from, int to, byte[] bound, int boundInf) {
        if (boundInf != 0) {
            return -boundInf;
        }
        return Arrays.compareUnsigned(b, from, to, bound, 0, bound.length);
    }

    public boolean aboveMin(byte[] b, int from, int to) {
        int c = compare(b, from, to, min, minInfinity);
        return minExclusive ? c > 0 : c >= 0;
    }

    public boolean belowMax(byte[] b, int from, int to) {
        int c = compare(b, from, to, max, maxInfinity);
        return maxExclusive ? c < 0 : c <= 0;
    }

    public boolean aboveMin(byte[] v) {
        int c = compare(v, 0, min, minInfinity);
        return minExclusive ? c > 0 : c >= 0;
    }

    public boolean belowMax(byte[] v) {
        int c = compare(v, 0, max, maxInfinity);
        return maxExclusive ? c < 0 : c <= 0;
    }

    public boolean isEmpty() {
        int c = compare(min, minInfinity, max, maxInfinity);
        return c > 0 || (c == 0 && (minExclusive || maxExclusive));
    }
}
