package dev.spinel.store;

/**
 * Redis's name for how it would hold a string value ({@code OBJECT ENCODING}), from the bytes alone,
 * by the rules of {@code tryObjectEncoding}: a decimal integer that fits a signed 64-bit long in
 * canonical form (no '+', no leading zeros, no "-0", at most 20 bytes) is "int"; otherwise up to
 * 44 bytes is "embstr", longer is "raw".
 *
 * <p>Spinel stores bare {@code byte[]}, so values Redis keeps "raw" because of how they were built
 * (APPEND, SETRANGE) report by their bytes here.
 *
 * <p>Stateless and thread-safe.
 */
public final class StringEncoding {
    /** Redis's OBJ_ENCODING_EMBSTR_SIZE_LIMIT. */
    public static final int EMBSTR_SIZE_LIMIT = 44;

    private StringEncoding() {
    }

    public static String of(byte[] v) {
        if (v.length <= 20 && isCanonicalLong(v)) {
            return "int";
        }
        return v.length <= EMBSTR_SIZE_LIMIT ? "embstr" : "raw";
    }

    /** Redis's {@code string2ll} acceptance, without depending on the protocol module. */
    static boolean isCanonicalLong(byte[] b) {
        int n = b.length;
        if (n == 0) {
            return false;
        }
        if (n == 1 && b[0] == '0') {
            return true;
        }
        int p = 0;
        boolean negative = b[0] == '-';
        if (negative) {
            p = 1;
            if (n == 1) {
                return false;
            }
        }
        if (b[p] < '1' || b[p] > '9') {
            return false;
        }
        long v = 0; // accumulated negatively so that Long.MIN_VALUE fits
        for (; p < n; p++) {
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
}
