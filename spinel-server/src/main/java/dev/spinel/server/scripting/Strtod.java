package dev.spinel.server.scripting;

/**
 * C's {@code strtod} on bytes (C locale): sign, decimal with optional fraction and exponent,
 * {@code 0x} hexadecimal (with optional fraction and {@code p} exponent), {@code inf}/{@code infinity},
 * {@code nan}/{@code nan(chars)}. {@link #parse} returns the end index (the start if nothing was read).
 *
 * <p>Stateless; the value read is stored in {@code out[0]}.
 */
final class Strtod {

    private Strtod() {
    }

    private static int at(byte[] b, int len, int i) {
        return i < len ? b[i] & 0xff : 0;
    }

    private static boolean word(byte[] b, int len, int p, String w) {
        for (int i = 0; i < w.length(); i++) {
            if ((at(b, len, p + i) | 0x20) != w.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isHex(int c) {
        return Character.digit(c, 16) >= 0;
    }

    static int parse(byte[] b, int len, int start, double[] out) {
        int p = start;
        boolean negative = false;
        if (at(b, len, p) == '+' || at(b, len, p) == '-') {
            negative = at(b, len, p) == '-';
            p++;
        }
        if (word(b, len, p, "inf")) {
            out[0] = negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            return word(b, len, p, "infinity") ? p + 8 : p + 3;
        }
        if (word(b, len, p, "nan")) {
            out[0] = Double.NaN;
            p += 3;
            if (at(b, len, p) == '(') {
                int q = p + 1;
                while (Character.isLetterOrDigit(at(b, len, q)) || at(b, len, q) == '_') {
                    q++;
                }
                if (at(b, len, q) == ')') {
                    p = q + 1;
                }
            }
            return p;
        }
        if (at(b, len, p) == '0' && (at(b, len, p + 1) | 0x20) == 'x'
            && (isHex(at(b, len, p + 2)) || (at(b, len, p + 2) == '.' && isHex(at(b, len, p + 3))))) {
            return hex(b, len, p + 2, negative, out);
        }
        int q = p;
        int n = 0;
        while (isDigit(at(b, len, q))) {
            q++;
            n++;
        }
        if (at(b, len, q) == '.') {
            q++;
            while (isDigit(at(b, len, q))) {
                q++;
                n++;
            }
        }
        if (n == 0) {
            return start;
        }
        if ((at(b, len, q) | 0x20) == 'e') {
            int e = q + 1;
            if (at(b, len, e) == '+' || at(b, len, e) == '-') {
                e++;
            }
            if (isDigit(at(b, len, e))) {
                while (isDigit(at(b, len, e))) {
                    e++;
                }
                q = e;
            }
        }
        String text = new String(b, p, q - p, java.nio.charset.StandardCharsets.US_ASCII);
        double v = Double.parseDouble(text);
        out[0] = negative ? -v : v;
        return q;
    }

    private static int hex(byte[] b, int len, int p, boolean negative, double[] out) {
        StringBuilder sb = new StringBuilder("0x");
        while (isHex(at(b, len, p))) {
            sb.append((char) at(b, len, p++));
        }
        if (at(b, len, p) == '.') {
            sb.append('.');
            p++;
            while (isHex(at(b, len, p))) {
                sb.append((char) at(b, len, p++));
            }
        }
        int exponent = 0;
        if ((at(b, len, p) | 0x20) == 'p') {
            int e = p + 1;
            boolean neg = false;
            if (at(b, len, e) == '+' || at(b, len, e) == '-') {
                neg = at(b, len, e) == '-';
                e++;
            }
            if (isDigit(at(b, len, e))) {
                long x = 0;
                while (isDigit(at(b, len, e))) {
                    x = Math.min(100000, x * 10 + at(b, len, e++) - '0');
                }
                exponent = (int) (neg ? -x : x);
                p = e;
            }
        }
        if (sb.charAt(sb.length() - 1) == '.') {
            sb.setLength(sb.length() - 1);
        }
        double v = Double.parseDouble(sb.append('p').append(exponent).toString());
        out[0] = negative ? -v : v;
        return p;
    }
}
