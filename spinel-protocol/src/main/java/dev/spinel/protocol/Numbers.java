package dev.spinel.protocol;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * Number parsing and formatting with Redis's exact rules, on bytes.
 *
 * <p>Stateless and thread-safe.
 */
public final class Numbers {
    private Numbers() {
    }

    /**
     * Parses a signed 64-bit integer the way Redis's {@code string2ll} does: no sign other than a
     * leading '-', no leading zeros, no spaces, nothing after the digits.
     *
     * @throws NumberFormatException if the bytes are not such an integer or overflow
     */
    public static long parseLong(byte[] b, int off, int len) {
        if (len == 0 || len > 20) {
            throw new NumberFormatException();
        }
        int p = off;
        int end = off + len;
        if (len == 1 && b[p] == '0') {
            return 0;
        }
        boolean negative = false;
        if (b[p] == '-') {
            negative = true;
            p++;
            if (p == end) {
                throw new NumberFormatException();
            }
        }
        int first = b[p] - '0';
        if (first < 1 || first > 9) {
            throw new NumberFormatException();
        }
        long v = 0; // accumulated negatively so that Long.MIN_VALUE fits
        final long multmin = Long.MIN_VALUE / 10;
        for (; p < end; p++) {
            int d = b[p] - '0';
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

    public static long parseLong(byte[] b) {
        return parseLong(b, 0, b.length);
    }

    /** True when the bytes are exactly an integer Redis would store with the "int" encoding. */
    public static boolean isLong(byte[] b, int off, int len) {
        try {
            parseLong(b, off, len);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /**
     * Parses a double the way Redis's {@code string2d}/{@code strtold} checks do: no leading space, the
     * whole input consumed, no NaN. Accepts {@code inf}, {@code +inf}, {@code -inf}, {@code infinity}.
     *
     * @throws NumberFormatException if not a valid number
     */
    public static double parseDouble(byte[] b, int off, int len) {
        if (len == 0 || len > 5000) {
            throw new NumberFormatException();
        }
        int p = off;
        int end = off + len;
        boolean neg = false;
        int s = p;
        if (b[s] == '+' || b[s] == '-') {
            neg = b[s] == '-';
            s++;
        }
        int rest = end - s;
        if (rest == 3 && matchesIgnoreCase(b, s, "inf") || rest == 8 && matchesIgnoreCase(b, s, "infinity")) {
            return neg ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        boolean digits = false;
        for (int k = s; k < end; k++) {
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
        double d = Double.parseDouble(new String(b, off, len, StandardCharsets.ISO_8859_1));
        if (Double.isNaN(d)) {
            throw new NumberFormatException();
        }
        return d;
    }

    public static double parseDouble(byte[] b) {
        return parseDouble(b, 0, b.length);
    }

    /** True when {@code b[off..]} starts with the lower-case ASCII word {@code lower}, ignoring case. */
    static boolean matchesIgnoreCase(byte[] b, int off, String lower) {
        for (int k = 0; k < lower.length(); k++) {
            int c = b[off + k];
            if (c >= 'A' && c <= 'Z') {
                c += 32;
            }
            if (c != lower.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /** Number of bytes {@code v} takes in decimal. */
    public static int digits(long v) {
        if (v < 0) {
            return v == Long.MIN_VALUE ? 20 : 1 + digits(-v);
        }
        int n = 1;
        long limit = 10;
        while (n < 19 && v >= limit) {
            n++;
            limit *= 10;
        }
        return n;
    }

    /** Writes {@code v} in decimal at {@code pos}; returns the position after it. */
    public static int writeLong(byte[] dst, int pos, long v) {
        if (v == Long.MIN_VALUE) {
            byte[] min = "-9223372036854775808".getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(min, 0, dst, pos, min.length);
            return pos + min.length;
        }
        int n = digits(v);
        int end = pos + n;
        int p = end;
        boolean neg = v < 0;
        if (neg) {
            v = -v;
        }
        do {
            dst[--p] = (byte) ('0' + (v % 10));
            v /= 10;
        } while (v != 0);
        if (neg) {
            dst[--p] = '-';
        }
        return end;
    }

    public static byte[] toBytes(long v) {
        byte[] b = new byte[digits(v)];
        writeLong(b, 0, v);
        return b;
    }

    /** Formats like C's {@code printf("%.17g")}, which Redis 7.0 uses for double replies. */
    public static String formatDouble(double d) {
        return formatG(d, 17);
    }

    /** Formats like C's {@code printf("%.<precision>g")}. */
    public static String formatG(double d, int precision) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0) {
            return (1 / d < 0) ? "-0" : "0";
        }
        BigDecimal bd = new BigDecimal(d).round(new MathContext(precision, RoundingMode.HALF_EVEN));
        int exponent = bd.precision() - bd.scale() - 1;
        if (exponent < -4 || exponent >= precision) {
            BigDecimal unscaled = bd.movePointLeft(exponent);
            String mant = stripZeros(unscaled.setScale(precision - 1, RoundingMode.HALF_EVEN).toPlainString());
            String sign = exponent < 0 ? "-" : "+";
            int ax = Math.abs(exponent);
            return mant + "e" + sign + (ax < 10 ? "0" : "") + ax;
        }
        int decimals = Math.max(precision - 1 - exponent, 0);
        return stripZeros(bd.setScale(decimals, RoundingMode.HALF_EVEN).toPlainString());
    }

    private static String stripZeros(String s) {
        if (s.indexOf('.') < 0) {
            return s;
        }
        int end = s.length();
        while (s.charAt(end - 1) == '0') {
            end--;
        }
        if (s.charAt(end - 1) == '.') {
            end--;
        }
        return s.substring(0, end);
    }
}
