package dev.spinel.protocol;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * C's {@code strtod} on bytes (C locale), for the commands whose number rules Redis builds on it (sorted
 * sets, SORT) and for the cjson library of Lua scripts: decimal and hexadecimal floats,
 * {@code inf}/{@code infinity}/{@code nan}/{@code nan(chars)} in any case, optional sign, leading white
 * space. {@link #scanNumber} finds how much of the input strtod would consume and {@link #value} converts
 * it; the callers apply their own checks (Redis's: whole input consumed, no NaN, and for strict parsing no
 * leading space and no overflow or underflow to zero). Stateless.
 */
public final class Strtod {
    private Strtod() {
    }

    /** Thrown when the input is not a number under the caller's rules. */
    public static final class Invalid extends Exception {
        static final Invalid INSTANCE = new Invalid();

        private Invalid() {
            super(null, null, false, false);
        }
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == '\f';
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isHex(byte c) {
        return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static boolean word(byte[] b, int p, int end, String w) {
        if (end - p < w.length()) {
            return false;
        }
        for (int i = 0; i < w.length(); i++) {
            if ((b[p + i] | 0x20) != w.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The length of the input as a C string: Redis hands these arguments to strtod, which stops at a NUL. */
    private static int cLength(byte[] b, int off, int len) {
        for (int i = 0; i < len; i++) {
            if (b[off + i] == 0) {
                return i;
            }
        }
        return len;
    }

    /**
     * Lenient form (zslParseRange): the whole input up to a NUL must be consumed (an empty input is 0) and not NaN.
     */
    public static double parseLenient(byte[] b, int off, int len) throws Invalid {
        len = cLength(b, off, len);
        int end = off + len;
        int p = off;
        while (p < end && isSpace(b[p])) {
            p++;
        }
        if (len == 0) {
            return 0;
        }
        int e = scanNumber(b, p, end);
        if (e == p || e != end) {
            throw Invalid.INSTANCE; // nothing converted leaves the end pointer at the start
        }
        double d = value(b, p, e);
        if (Double.isNaN(d)) {
            throw Invalid.INSTANCE;
        }
        return d;
    }

    /**
     * Strict form (getDoubleFromObject): non-empty, no leading space, whole input consumed, no NaN,
     * no overflow to infinity and no underflow to zero.
     */
    public static double parseStrict(byte[] b, int off, int len) throws Invalid {
        int end = off + len;
        if (len == 0 || isSpace(b[off])) {
            throw Invalid.INSTANCE;
        }
        int e = scanNumber(b, off, end);
        if (e != end) {
            throw Invalid.INSTANCE;
        }
        double d = value(b, off, e);
        if (Double.isNaN(d)) {
            throw Invalid.INSTANCE;
        }
        if (Double.isInfinite(d) && !isInfWord(b, off, e)) {
            throw Invalid.INSTANCE; // ERANGE overflow
        }
        if (d == 0 && hasNonZeroDigit(b, off, e)) {
            throw Invalid.INSTANCE; // ERANGE underflow to zero
        }
        return d;
    }

    /**
     * SORT's form: strtod must consume the whole input (an empty input is 0, leading space allowed), and
     * neither NaN nor ERANGE (overflow to infinity, underflow to zero) is accepted.
     */
    public static double parseForSort(byte[] b, int off, int len) throws Invalid {
        len = cLength(b, off, len);
        double d = parseLenient(b, off, len);
        int p = off;
        while (p < off + len && isSpace(b[p])) {
            p++;
        }
        if (len > 0 && ((Double.isInfinite(d) && !isInfWord(b, p, off + len)) || (d == 0 && hasNonZeroDigit(b, p, off + len))
                || inexactSubnormal(b, p, off + len, d))) {
            throw Invalid.INSTANCE;
        }
        return d;
    }

    /**
     * glibc's strtod also sets ERANGE when the result is subnormal and rounded (1e-310, not 0x1p-1070),
     * which SORT's errno test sees.
     */
    private static boolean inexactSubnormal(byte[] b, int p, int end, double d) {
        if (d == 0 || Double.isInfinite(d) || Math.abs(d) >= Double.MIN_NORMAL) {
            return false;
        }
        String t = new String(b, p, end - p, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        boolean neg = t.startsWith("-");
        if (neg || t.startsWith("+")) {
            t = t.substring(1);
        }
        BigDecimal exact;
        try {
            if (t.startsWith("0x")) {
                String h = t.substring(2);
                int at = h.indexOf('p');
                long exp2 = at < 0 ? 0 : Long.parseLong(h.substring(at + 1).replace("+", ""));
                String m = at < 0 ? h : h.substring(0, at);
                int dot = m.indexOf('.');
                if (dot >= 0) {
                    exp2 -= 4L * (m.length() - dot - 1);
                    m = m.substring(0, dot) + m.substring(dot + 1);
                }
                exact = new BigDecimal(new BigInteger(m, 16));
                if (exp2 >= 0) {
                    exact = exact.multiply(new BigDecimal(BigInteger.TWO.pow((int) exp2)));
                } else {
                    exact = exact.divide(new BigDecimal(BigInteger.TWO.pow((int) -exp2)));
                }
            } else {
                exact = new BigDecimal(t);
            }
        } catch (NumberFormatException | ArithmeticException e) {
            return false;
        }
        return exact.compareTo(new BigDecimal(Math.abs(d))) != 0;
    }

    private static boolean isInfWord(byte[] b, int p, int end) {
        if (b[p] == '+' || b[p] == '-') {
            p++;
        }
        return word(b, p, end, "inf");
    }

    private static boolean hasNonZeroDigit(byte[] b, int p, int end) {
        boolean hex = false;
        for (int i = p; i < end; i++) {
            byte c = b[i];
            if ((c | 0x20) == 'x') {
                hex = true;
                continue;
            }
            if (!hex && (c == 'e' || c == 'E')) {
                return false;
            }
            if (hex && (c == 'p' || c == 'P')) {
                return false;
            }
            if ((c >= '1' && c <= '9') || (hex && isHex(c) && c != '0')) {
                return true;
            }
        }
        return false;
    }

    /** Index just after the longest prefix strtod converts, starting at {@code p}; {@code p} if none. */
    public static int scanNumber(byte[] b, int p, int end) {
        int i = p;
        if (i < end && (b[i] == '+' || b[i] == '-')) {
            i++;
        }
        if (word(b, i, end, "infinity")) {
            return i + 8;
        }
        if (word(b, i, end, "inf")) {
            return i + 3;
        }
        if (word(b, i, end, "nan")) {
            int j = i + 3;
            if (j < end && b[j] == '(') { // nan(n-char-sequence)
                int k = j + 1;
                while (k < end && (isDigit(b[k]) || Character.isLetter(b[k]) || b[k] == '_')) {
                    k++;
                }
                if (k < end && b[k] == ')') {
                    return k + 1;
                }
            }
            return j;
        }
        if (i + 1 < end && b[i] == '0' && (b[i + 1] | 0x20) == 'x') {
            int j = i + 2;
            int digits = 0;
            while (j < end && isHex(b[j])) {
                j++;
                digits++;
            }
            if (j < end && b[j] == '.') {
                j++;
                while (j < end && isHex(b[j])) {
                    j++;
                    digits++;
                }
            }
            if (digits == 0) {
                return i + 1; // just the "0"
            }
            return exponent(b, j, end, 'p');
        }
        int j = i;
        int digits = 0;
        while (j < end && isDigit(b[j])) {
            j++;
            digits++;
        }
        if (j < end && b[j] == '.') {
            j++;
            while (j < end && isDigit(b[j])) {
                j++;
                digits++;
            }
        }
        if (digits == 0) {
            return p;
        }
        return exponent(b, j, end, 'e');
    }

    private static int exponent(byte[] b, int j, int end, char marker) {
        if (j < end && (b[j] | 0x20) == marker) {
            int k = j + 1;
            if (k < end && (b[k] == '+' || b[k] == '-')) {
                k++;
            }
            int start = k;
            while (k < end && isDigit(b[k])) {
                k++;
            }
            if (k > start) {
                return k;
            }
        }
        return j;
    }

    /** The value of {@code b[p, e)}, a prefix {@link #scanNumber} accepted. */
    public static double value(byte[] b, int p, int e) {
        String t = new String(b, p, e - p, StandardCharsets.ISO_8859_1);
        int i = 0;
        boolean neg = false;
        if (t.charAt(0) == '+' || t.charAt(0) == '-') {
            neg = t.charAt(0) == '-';
            i = 1;
        }
        String body = t.substring(i).toLowerCase(Locale.ROOT);
        double v;
        if (body.startsWith("inf")) {
            v = Double.POSITIVE_INFINITY;
        } else if (body.startsWith("nan")) {
            v = Double.NaN;
        } else if (body.startsWith("0x")) {
            v = Double.parseDouble(body.contains("p") ? clampBinaryExponent(body) : body + "p0");
        } else {
            v = Double.parseDouble(body);
        }
        return neg ? -v : v;
    }

    /** A binary exponent beyond any double's range, cut to one that still gives 0 or infinity (parseDouble takes an int). */
    private static String clampBinaryExponent(String hex) {
        int at = hex.indexOf('p');
        int digits = hex.length() - at - 1 - (hex.charAt(at + 1) == '+' || hex.charAt(at + 1) == '-' ? 1 : 0);
        if (digits <= 6) {
            return hex;
        }
        boolean negative = hex.charAt(at + 1) == '-';
        return hex.substring(0, at + 1) + (negative ? "-100000" : "100000");
    }
}
