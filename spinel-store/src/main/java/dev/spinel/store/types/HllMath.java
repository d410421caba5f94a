package dev.spinel.store.types;

import static dev.spinel.store.types.HyperLogLog.P;
import static dev.spinel.store.types.HyperLogLog.Q;
import static dev.spinel.store.types.HyperLogLog.REGISTERS;

/**
 * The arithmetic of Redis 7.0's HyperLogLog (hyperloglog.c): the hash that picks an element's register and
 * run length, and the cardinality estimator over a histogram of register values. Pure functions, so the
 * representations ({@link HyperLogLog}'s dense and sparse encodings) keep only their byte handling.
 *
 * <p>Stateless and thread-safe.
 */
final class HllMath {
    private static final double ALPHA_INF = 0.721347520444481703680;

    private HllMath() {
    }

    /** MurmurHash64A as Redis has it (little-endian 8-byte blocks, unsigned 32-bit seed). */
    static long murmur64a(byte[] key, int off, int n, int seed) {
        final long m = 0xc6a4a7935bd1e995L;
        final int r = 47;
        long h = (seed & 0xffffffffL) ^ (n * m);
        int end = off + (n & ~7);
        int i = off;
        for (; i < end; i += 8) {
            long k = (key[i] & 0xffL) | (key[i + 1] & 0xffL) << 8 | (key[i + 2] & 0xffL) << 16
                    | (key[i + 3] & 0xffL) << 24 | (key[i + 4] & 0xffL) << 32 | (key[i + 5] & 0xffL) << 40
                    | (key[i + 6] & 0xffL) << 48 | (key[i + 7] & 0xffL) << 56;
            k *= m;
            k ^= k >>> r;
            k *= m;
            h ^= k;
            h *= m;
        }
        int rest = n & 7;
        if (rest > 0) {
            for (int j = rest - 1; j >= 0; j--) {
                h ^= (key[i + j] & 0xffL) << (8 * j);
            }
            h *= m;
        }
        h ^= h >>> r;
        h *= m;
        h ^= h >>> r;
        return h;
    }

    /**
     * Redis's hllPatLen: the register index (low 14 bits of the hash) in the low 32 bits of the result,
     * the run length of zeros of the rest plus one (1..51) in the high 32 bits.
     */
    static long patLen(byte[] ele, int off, int n) {
        long hash = murmur64a(ele, off, n, 0xadc83b19);
        int index = (int) (hash & (REGISTERS - 1));
        long rest = (hash >>> P) | (1L << Q);
        int count = Long.numberOfTrailingZeros(rest) + 1;
        return ((long) count << 32) | index;
    }

    /** Ertl's improved estimator ("New cardinality estimation algorithms for HyperLogLog sketches"). */
    static long estimate(int[] histo) {
        double m = REGISTERS;
        double z = m * tau((m - histo[Q + 1]) / m);
        for (int j = Q; j >= 1; --j) {
            z += histo[j];
            z *= 0.5;
        }
        z += m * sigma(histo[0] / m);
        return Math.round(ALPHA_INF * m * m / z);
    }

    static double sigma(double x) {
        if (x == 1.0) {
            return Double.POSITIVE_INFINITY;
        }
        double zPrime;
        double y = 1;
        double z = x;
        do {
            x *= x;
            zPrime = z;
            z += x * y;
            y += y;
        } while (zPrime != z);
        return z;
    }

    static double tau(double x) {
        if (x == 0.0 || x == 1.0) {
            return 0.0;
        }
        double zPrime;
        double y = 1.0;
        double z = 1 - x;
        do {
            x = Math.sqrt(x);
            zPrime = z;
            y *= 0.5;
            z -= (1 - x) * (1 - x) * y;
        } while (zPrime != z);
        return z / 3;
    }
}
