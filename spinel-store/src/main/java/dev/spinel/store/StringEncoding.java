package dev.spinel.store;

/**
 * The encoding Redis reports for a string value ({@code OBJECT ENCODING}), derived from its bytes with
 * the rules of Redis's {@code tryObjectEncoding}: a canonical 64-bit integer of at most 20 characters
 * is {@code int}, anything else up to 44 bytes is {@code embstr}, longer strings are {@code raw}.
 *
 * <p>Stateless and thread-safe.
 */
public final class StringEncoding {
    /** Redis's OBJ_ENCODING_EMBSTR_SIZE_LIMIT. */
    public static final int EMBSTR_LIMIT = 44;

    private StringEncoding() {
    }

    public static String of(byte[] value) {
        if (isInteger(value)) {
            return "int";
        }
        return value.length <= EMBSTR_LIMIT ? "embstr" : "raw";
    }

    /** The encoding of a string value stored with an {@link Entry#stringMark() entry mark}. */
    public static String of(byte[] value, int mark) {
        return of(value, value.length, mark);
    }

    /**
     * {@link #of(byte[], int)} of the first {@code len} bytes of {@code b}: a string read in place, e.g. a
     * {@link GrowableString}'s array, which is longer than the string.
     */
    public static String of(byte[] b, int len, int mark) {
        return switch (mark) {
            case Entry.STRING_RAW -> "raw";
            case Entry.STRING_NOT_INT -> len <= EMBSTR_LIMIT ? "embstr" : "raw";
            default -> isInteger(b, len) ? "int" : len <= EMBSTR_LIMIT ? "embstr" : "raw";
        };
    }

    /**
     * True when the bytes are exactly what Redis's {@code string2ll} accepts: an optional '-', no leading
     * zeros (except "0" itself), no spaces, and a value in the signed 64-bit range.
     */
    public static boolean isInteger(byte[] b) {
        return isInteger(b, b.length);
    }

    /** {@link #isInteger(byte[])} of the first {@code len} bytes of {@code b}. */
    public static boolean isInteger(byte[] b, int len) {
        if (len == 0 || len > 20) {
            return false;
        }
        if (len == 1 && b[0] == '0') {
            return true;
        }
        int p = 0;
        boolean negative = b[0] == '-';
        if (negative) {
            p++;
            if (p == len) {
                return false;
            }
        }
        if (b[p] < '1' || b[p] > '9') {
            return false;
        }
        long v = 0; // accumulated negatively so that Long.MIN_VALUE fits
        for (; p < len; p++) {
            int d = b[p] - '0';
            if (d < 0 || d > 9 || v < Long.MIN_VALUE / 10) {
                return false;
            }
            v *= 10;
            if (v < Long.MIN_VALUE + d) {
                return false;
            }
            v -= d;
        }
        return negative || v != Long.MIN_VALUE;
    }

    /** The integer value of a string for which {@link #isInteger} holds. */
    public static long integerValue(byte[] b) {
        return integerValue(b, b.length);
    }

    /** {@link #integerValue(byte[])} of the first {@code len} bytes of {@code b}. */
    public static long integerValue(byte[] b, int len) {
        long v = 0;
        boolean negative = b[0] == '-';
        for (int p = negative ? 1 : 0; p < len; p++) {
            v = v * 10 - (b[p] - '0');
        }
        return negative ? v : -v;
    }
}
