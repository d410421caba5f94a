package dev.spinel.protocol;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * Emulates the x87 80-bit {@code long double} arithmetic Redis uses for INCRBYFLOAT and
 * HINCRBYFLOAT, so that results are the same digits Redis prints.
 *
 * <p>A finite value is held as a {@link BigDecimal} equal to its exact binary value (every binary
 * fraction is a finite decimal): a 64-bit significand, exponents down to 2^-16382 (subnormals to
 * 2^-16445), overflow past 2^16384. {@link #parse} follows glibc {@code strtold} under Redis's
 * {@code string2ld} checks, {@link #add} rounds the exact sum to nearest-even as the FPU does, and
 * {@link #formatHuman} prints like {@code ld2string(..., LD_STR_HUMAN)}: {@code "%.17Lf"} with
 * trailing zeros (and a lone "-0" sign) removed.
 *
 * <p>Stateless and thread-safe.
 */
public final class LongDouble {
    private LongDouble() {
    }

    /** Redis's MAX_LONG_DOUBLE_CHARS: inputs of this many bytes or more are refused. */
    static final int MAX_CHARS = 5 * 1024;
    private static final int MANTISSA_BITS = 64;
    private static final int MIN_NORMAL_EXP = -16382;
    /** Exponent of the smallest subnormal's unit: 2^-16445. */
    private static final int MIN_QUANTUM = MIN_NORMAL_EXP - (MANTISSA_BITS - 1);
    /** Values of 2^16384 or more overflow. */
    private static final int MAX_EXP_EXCLUSIVE = 16384;
    private static final int EXP_SATURATION = 1_000_000_000;

    /**
     * Parses a number as Redis's {@code string2ld} does. Returns the exact value of the nearest
     * long double, or {@code null} for an infinity ("inf", "-Infinity", ...), which is a valid input
     * whose arithmetic can only give an infinity or NaN.
     *
     * @throws NumberFormatException if Redis would reply "not a valid float": empty or too long,
     *         leading space, trailing bytes, NaN, or a finite input that overflows or underflows to 0
     */
    public static BigDecimal parse(byte[] b, int off, int len) {
        if (len == 0 || len >= MAX_CHARS) {
            throw new NumberFormatException();
        }
        int p = off;
        int end = off + len;
        boolean negative = false;
        if (b[p] == '+' || b[p] == '-') {
            negative = b[p] == '-';
            p++;
        }
        if (p == end) {
            throw new NumberFormatException();
        }
        int rest = end - p;
        if (rest == 3 && Numbers.matchesIgnoreCase(b, p, "inf") || rest == 8 && Numbers.matchesIgnoreCase(b, p, "infinity")) {
            return null;
        }
        BigDecimal v;
        if (rest > 2 && b[p] == '0' && (b[p + 1] == 'x' || b[p + 1] == 'X')) {
            v = parseHex(b, p + 2, end);
        } else {
            v = parseDecimal(b, p, end);
        }
        return negative ? v.negate() : v;
    }

    public static BigDecimal parse(byte[] b) {
        return parse(b, 0, b.length);
    }

    private static BigDecimal parseDecimal(byte[] b, int p, int end) {
        StringBuilder digits = new StringBuilder(end - p);
        int fraction = 0;
        boolean dot = false;
        for (; p < end; p++) {
            byte c = b[p];
            if (c >= '0' && c <= '9') {
                digits.append((char) c);
                if (dot) {
                    fraction++;
                }
            } else if (c == '.' && !dot) {
                dot = true;
            } else {
                break;
            }
        }
        if (digits.isEmpty()) {
            throw new NumberFormatException();
        }
        long exp = 0;
        if (p < end && (b[p] == 'e' || b[p] == 'E')) {
            exp = parseExponent(b, p + 1, end);
        } else if (p != end) {
            throw new NumberFormatException();
        }
        BigInteger m = new BigInteger(digits.toString());
        if (m.signum() == 0) {
            return BigDecimal.ZERO;
        }
        long scale = fraction - exp; // value = m * 10^-scale
        // Magnitude screen before any big arithmetic: log10(value) lies in [mag - 1, mag).
        long mag = (m.bitLength() * 30103L) / 100000 + 1 - scale;
        if (mag > 4934) {
            throw new NumberFormatException(); // overflow: strtold gives HUGE_VALL, ERANGE
        }
        if (mag < -4953) {
            throw new NumberFormatException(); // underflow to zero, ERANGE
        }
        return checkedRound(new BigDecimal(m, (int) scale));
    }

    private static BigDecimal parseHex(byte[] b, int p, int end) {
        StringBuilder digits = new StringBuilder(end - p);
        int fraction = 0;
        boolean dot = false;
        for (; p < end; p++) {
            int d = Character.digit(b[p], 16);
            if (d >= 0) {
                digits.append((char) b[p]);
                if (dot) {
                    fraction++;
                }
            } else if (b[p] == '.' && !dot) {
                dot = true;
            } else {
                break;
            }
        }
        if (digits.isEmpty()) {
            throw new NumberFormatException(); // strtold would stop after the "0" before 'x'
        }
        long exp = 0;
        if (p < end && (b[p] == 'p' || b[p] == 'P')) {
            exp = parseExponent(b, p + 1, end);
        } else if (p != end) {
            throw new NumberFormatException();
        }
        BigInteger m = new BigInteger(digits.toString(), 16);
        if (m.signum() == 0) {
            return BigDecimal.ZERO;
        }
        long e2 = exp - 4L * fraction; // value = m * 2^e2
        long top = m.bitLength() + e2; // value < 2^top
        if (top > MAX_EXP_EXCLUSIVE + 1) {
            throw new NumberFormatException();
        }
        if (top < MIN_QUANTUM - 1) {
            throw new NumberFormatException();
        }
        return checkedRound(exact(m, e2));
    }

    /** Rounds a parsed nonzero value; overflow or underflow to zero are strtold's ERANGE refusals. */
    private static BigDecimal checkedRound(BigDecimal exact) {
        BigDecimal r = round(exact);
        if (r == null || r.signum() == 0) {
            throw new NumberFormatException();
        }
        return r;
    }

    /** A decimal exponent: optional sign, at least one digit, nothing after; saturates when huge. */
    private static long parseExponent(byte[] b, int p, int end) {
        boolean neg = false;
        if (p < end && (b[p] == '+' || b[p] == '-')) {
            neg = b[p] == '-';
            p++;
        }
        if (p == end) {
            throw new NumberFormatException();
        }
        long e = 0;
        for (; p < end; p++) {
            int d = b[p] - '0';
            if (d < 0 || d > 9) {
                throw new NumberFormatException();
            }
            e = Math.min(EXP_SATURATION, e * 10 + d);
        }
        return neg ? -e : e;
    }

    /**
     * The sum rounded to the nearest long double, or {@code null} if it overflows to an infinity.
     */
    public static BigDecimal add(BigDecimal a, BigDecimal b) {
        return round(a.add(b));
    }

    /**
     * Rounds an exact value to the nearest long double (ties to even), or {@code null} on overflow.
     * Values below the smallest subnormal's half round to zero.
     */
    static BigDecimal round(BigDecimal x) {
        if (x.signum() == 0) {
            return BigDecimal.ZERO;
        }
        boolean negative = x.signum() < 0;
        BigInteger num = x.unscaledValue().abs();
        BigInteger den = BigInteger.ONE;
        if (x.scale() > 0) {
            den = pow10(x.scale());
        } else if (x.scale() < 0) {
            num = num.multiply(pow10(-x.scale()));
        }
        // e = floor(log2(num/den)), from the bit lengths and one exact comparison.
        long e = (long) num.bitLength() - den.bitLength();
        if (compareScaled(num, den, e) < 0) {
            e--;
        }
        if (e >= MAX_EXP_EXCLUSIVE) {
            return null;
        }
        long q = Math.max(e - (MANTISSA_BITS - 1), MIN_QUANTUM); // weight of the last significand bit
        BigInteger n = num;
        BigInteger d = den;
        if (q < 0) {
            n = n.shiftLeft((int) -q);
        } else {
            d = d.shiftLeft((int) q);
        }
        BigInteger[] qr = n.divideAndRemainder(d);
        BigInteger m = qr[0];
        int half = qr[1].shiftLeft(1).compareTo(d);
        if (half > 0 || half == 0 && m.testBit(0)) {
            m = m.add(BigInteger.ONE);
        }
        if (m.signum() == 0) {
            return BigDecimal.ZERO;
        }
        if (m.bitLength() + q > MAX_EXP_EXCLUSIVE) {
            return null;
        }
        BigDecimal r = exact(m, q);
        return negative ? r.negate() : r;
    }

    /** Compares num/den with 2^e. */
    private static int compareScaled(BigInteger num, BigInteger den, long e) {
        if (e >= 0) {
            return num.compareTo(den.shiftLeft((int) e));
        }
        return num.shiftLeft((int) -e).compareTo(den);
    }

    /** The exact decimal value of m * 2^e. */
    private static BigDecimal exact(BigInteger m, long e) {
        if (e >= 0) {
            return new BigDecimal(m.shiftLeft((int) e));
        }
        int k = (int) -e;
        // m / 2^k = m * 5^k / 10^k
        return new BigDecimal(m.multiply(pow5(k)), k);
    }

    /** Powers of five for the usual exponents (values within a few hundred binary orders of 1). */
    private static final BigInteger[] POW5 = new BigInteger[256];
    private static final BigInteger[] POW10 = new BigInteger[256];

    static {
        POW5[0] = BigInteger.ONE;
        POW10[0] = BigInteger.ONE;
        for (int i = 1; i < POW5.length; i++) {
            POW5[i] = POW5[i - 1].multiply(BigInteger.valueOf(5));
            POW10[i] = POW10[i - 1].multiply(BigInteger.TEN);
        }
    }

    private static BigInteger pow10(int k) {
        return k < POW10.length ? POW10[k] : BigInteger.TEN.pow(k);
    }

    private static BigInteger pow5(int k) {
        return k < POW5.length ? POW5[k] : BigInteger.valueOf(5).pow(k);
    }

    /**
     * Formats like Redis's {@code ld2string(LD_STR_HUMAN)}: {@code printf("%.17Lf")}, trailing zeros
     * after the point removed, the point too if nothing follows it, and "-0" written "0".
     */
    public static String formatHuman(BigDecimal v) {
        String s = v.setScale(17, RoundingMode.HALF_EVEN).toPlainString();
        int end = s.length();
        while (s.charAt(end - 1) == '0') {
            end--;
        }
        if (s.charAt(end - 1) == '.') {
            end--;
        }
        s = s.substring(0, end);
        return s.equals("-0") ? "0" : s;
    }
}
