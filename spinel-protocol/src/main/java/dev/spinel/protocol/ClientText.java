package dev.spinel.protocol;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Client bytes carried inside a Java string without loss, for error texts that quote an argument as Redis's
 * {@code %s} does: valid UTF-8 decodes as usual, and every byte that is not part of valid UTF-8 becomes the
 * lone surrogate {@code U+DC80 + (byte - 0x80)} ("surrogate escape"), which {@link #encode} turns back into that
 * byte. Lone surrogates never come from real text, so ordinary strings encode as plain UTF-8.
 *
 * <p>Stateless and thread-safe.
 */
public final class ClientText {
    private static final char ESCAPE = 0xDC00;

    private ClientText() {
    }

    /** The bytes as C's {@code %s} reads them: up to the first NUL, surrogate-escaped where not UTF-8. */
    public static String cString(byte[] b, int off, int len) {
        int end = off;
        while (end < off + len && b[end] != 0) {
            end++;
        }
        return decode(b, off, end - off);
    }

    /** The bytes as text: UTF-8, surrogate-escaped where not valid UTF-8 (NULs included). */
    public static String decode(byte[] b, int off, int len) {
        int end = off + len;
        StringBuilder s = new StringBuilder(len);
        int p = off;
        while (p < end) {
            int c = b[p] & 0xff;
            int n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
            int cp = n == 0 ? -1 : decode(b, p, end, n);
            if (cp < 0) {
                s.append((char) (ESCAPE + c));
                p++;
            } else {
                s.appendCodePoint(cp);
                p += n;
            }
        }
        return s.toString();
    }

    /** The code point of the {@code n}-byte sequence at {@code p}, or -1 if it is not valid UTF-8. */
    private static int decode(byte[] b, int p, int end, int n) {
        if (n == 1) {
            return b[p];
        }
        if (p + n > end) {
            return -1;
        }
        int cp = b[p] & (0xff >> (n + 1));
        for (int k = 1; k < n; k++) {
            int c = b[p + k] & 0xff;
            if ((c & 0xC0) != 0x80) {
                return -1;
            }
            cp = (cp << 6) | (c & 0x3F);
        }
        int min = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return -1; // overlong, beyond Unicode, or a surrogate: not UTF-8
        }
        return cp;
    }

    /** UTF-8, except that escaped bytes ({@link #cString}) are written back as themselves. */
    public static byte[] encode(String s) {
        boolean escaped = false;
        for (int i = 0; i < s.length() && !escaped; i++) {
            char c = s.charAt(i);
            escaped = c >= ESCAPE + 0x80 && c <= ESCAPE + 0xFF && !isPairedLow(s, i);
        }
        if (!escaped) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length() + 8);
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= ESCAPE + 0x80 && c <= ESCAPE + 0xFF && !isPairedLow(s, i)) {
                out.writeBytes(s.substring(start, i).getBytes(StandardCharsets.UTF_8));
                out.write(c - ESCAPE);
                start = i + 1;
            }
        }
        out.writeBytes(s.substring(start).getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    /** Whether the low surrogate at {@code i} completes a pair (real text), rather than standing alone. */
    private static boolean isPairedLow(String s, int i) {
        return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }
}
