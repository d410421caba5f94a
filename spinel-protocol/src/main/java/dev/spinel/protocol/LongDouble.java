package dev.spinel.protocol;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * Redis's {@code long double} arithmetic (INCRBYFLOAT, HINCRBYFLOAT) emulated exactly: on x86 a
 * {@code long double} has a 64-bit mantissa, so values are kept as exact {@link BigDecimal}s rounded
 * to 64 significant bits (round-half-even, as the FPU) after parsing and after each addition, and
 * printed as Redis's {@code ld2string(LD_STR_HUMAN)}: {@code "%.17Lf"} with trailing zeros (and a
 * trailing point) removed, "-0" printed as "0". A plain {@code double} would give 10.5 + 0.1 =
 * "10.59999999999999964" where Redis answers "10.6".
 *
 * <p>Stateless and thread-safe. Hexadecimal float input (accepted by strtold) is not supported.
 */
public final class LongDouble {
    private static final int MANTISSA_BITS = 64;
    /** Largest binary exponent of a finite x87 long double. */
    private static final int MAX_EXP = 16384;

    private LongDouble() {
    }

    /**
     * Parses like Redis's {@code string2ld}: the whole input, no spaces, no NaN. Returns the rounded
     * value, or {@code null} for an infinity ("inf", "-infinity", or a decimal beyond the range).
     *
     * @throws NumberFormatException when not a number
     */
    public static BigDecimal parse(byte[] b, int off, int len) {
        if (len == 0 || len > 5000) {
            throw new NumberFormatException();
        }
        int s = off;
        if (b[s] == '+' || b[s] == '-') {
            s++;
        }
        String rest = new String(b, s, off + len - s, java.nio.charset.StandardCharsets.ISO_8859_1).toLowerCase();
        if (rest.equals("inf") || rest.equals("infinity")) {
            return null;
        }
        if (rest.startsWith("0x")) {
            BigDecimal h = hex(rest.substring(2));
            return checkRange(b[off] == '-' ? h.negate() : h);
        }
        boolean digits = false;
        for (int k = off; k < off + len; k++) {
            byte c = b[k];
            if (c >= '0' && c <= '9') {
                digits = true;
            } else if (c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-') {
                throw new NumberFormatException();
            }
        }
        if (!digits) {
            throw new NumberFormatException();
        }
        return checkRange(new BigDecimal(new String(b, off, len, java.nio.charset.StandardCharsets.ISO_8859_1)));
    }

    /** strtold's ERANGE: overflow, or underflow to zero (below half the smallest subnormal); Redis refuses both. */
    private static BigDecimal checkRange(BigDecimal exact) {
        if (exact.signum() != 0 && exact.abs().compareTo(UNDERFLOW) < 0) {
            throw new NumberFormatException();
        }
        BigDecimal r = round(exact);
        if (r == null) {
            throw new NumberFormatException();
        }
        return r;
    }

    private static final BigDecimal UNDERFLOW = BigDecimal.ONE.divide(new BigDecimal(BigInteger.ONE.shiftLeft(16446)));

    /** Exact value of a hexadecimal float body (after "0x"): hex digits, optional point, optional p exponent. */
    private static BigDecimal hex(String body) {
        int pIdx = body.indexOf('p');
        String mant = pIdx < 0 ? body : body.substring(0, pIdx);
        int exp = 0;
        if (pIdx >= 0) {
            String e = body.substring(pIdx + 1);
            if (!e.matches("[+-]?[0-9]{1,6}")) {
                throw new NumberFormatException();
            }
            exp = Integer.parseInt(e);
        }
        int dot = mant.indexOf('.');
        String digits = dot < 0 ? mant : mant.substring(0, dot) + mant.substring(dot + 1);
        int fraction = dot < 0 ? 0 : mant.length() - dot - 1;
        if (digits.isEmpty() || !digits.matches("[0-9a-f]+")) {
            throw new NumberFormatException();
        }
        BigDecimal v = new BigDecimal(new BigInteger(digits, 16));
        int shift = exp - 4 * fraction;
        BigDecimal pow = new BigDecimal(BigInteger.ONE.shiftLeft(Math.abs(shift)));
        return shift >= 0 ? v.multiply(pow) : v.divide(pow);
    }

    /** {@code a + b} rounded to a long double, or {@code null} when it overflows to infinity. */
    public static BigDecimal add(BigDecimal a, BigDecimal b) {
        return round(a.add(b));
    }

    /** Exact value of a long integer (every {@code long} fits a 64-bit mantissa). */
    public static BigDecimal of(long v) {
        return BigDecimal.valueOf(v);
    }

    /** Redis's human format: {@code %.17Lf}, trailing zeros and point removed, never "-0". */
    public static String format(BigDecimal v) {
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

    /** Rounds to 64 significant bits, half-even; {@code null} when beyond the long double range. */
    static BigDecimal round(BigDecimal x) {
        if (x.signum() == 0) {
            return BigDecimal.ZERO;
        }
        BigDecimal abs = x.abs();
        // estimate floor(log2 |x|), then correct by scaling into [2^63, 2^64)
        long e = (long) Math.floor((abs.unscaledValue().bitLength() - 1) - abs.scale() * (Math.log(10) / Math.log(2))) - (MANTISSA_BITS - 1);
        BigInteger lo = BigInteger.ONE.shiftLeft(MANTISSA_BITS - 1);
        BigInteger hi = BigInteger.ONE.shiftLeft(MANTISSA_BITS);
        while (true) {
            if (e + MANTISSA_BITS > MAX_EXP) {
                return null;
            }
            BigDecimal scaled = e >= 0 ? abs.divide(new BigDecimal(BigInteger.ONE.shiftLeft((int) e)))
                    : abs.multiply(new BigDecimal(BigInteger.ONE.shiftLeft((int) -e)));
            BigInteger floor = scaled.setScale(0, RoundingMode.FLOOR).toBigIntegerExact();
            if (floor.compareTo(hi) >= 0) {
                e++;
                continue;
            }
            if (floor.compareTo(lo) < 0) {
                e--;
                continue;
            }
            BigInteger m = scaled.setScale(0, RoundingMode.HALF_EVEN).toBigIntegerExact();
            BigDecimal r = e >= 0 ? new BigDecimal(m.shiftLeft((int) e))
                    : new BigDecimal(m).divide(new BigDecimal(BigInteger.ONE.shiftLeft((int) -e)));
            if (e + MANTISSA_BITS > MAX_EXP || (m.equals(hi) && e + MANTISSA_BITS + 1 > MAX_EXP)) {
                return null;
            }
            return x.signum() < 0 ? r.negate() : r;
        }
    }
}
