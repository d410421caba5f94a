package dev.spinel.server.config;

import dev.spinel.protocol.ClientText;
import dev.spinel.protocol.Repr;

import java.util.ArrayList;
import java.util.List;

/**
 * Splitting and quoting of config lines, with the rules of Redis's {@code sdssplitargs}. A word is bytes in Redis:
 * {@code \xhh} escapes add bytes, and the word is read as UTF-8 ({@link ClientText#decode}: a byte that is not
 * part of valid UTF-8 is kept as an escaped byte), so {@code "\xc3\xa9"} is {@code é}, as the file's own text.
 */
public final class Quoting {
    /** A byte {@code b} above 0x7f from a {@code \xhh} escape is held as {@code ESCAPED_BYTE + b} ({@link ClientText}'s form). */
    private static final char ESCAPED_BYTE = 0xDC00;

    private Quoting() {
    }

    /** Splits a config line into words; {@code null} when quotes are unbalanced. */
    public static List<String> split(String line) {
        return split(line, true);
    }

    /**
     * {@link #split} for a line whose string holds one char per byte (ISO-8859-1, as an AOF manifest's file names):
     * a {@code \xhh} escape is the char {@code hh}, and no word is read as UTF-8.
     */
    public static List<String> splitLatin1(String line) {
        return split(line, false);
    }

    private static List<String> split(String line, boolean utf8) {
        List<String> out = new ArrayList<>();
        int p = 0;
        int n = line.length();
        while (true) {
            while (p < n && isSpace(line.charAt(p))) {
                p++;
            }
            if (p >= n) {
                return out;
            }
            StringBuilder cur = new StringBuilder();
            boolean inDq = false;
            boolean inSq = false;
            boolean done = false;
            boolean bytes = false;
            while (!done) {
                if (inDq) {
                    if (p >= n) {
                        return null;
                    }
                    char c = line.charAt(p);
                    if (c == '\\' && p + 3 < n && line.charAt(p + 1) == 'x' && isHex(line.charAt(p + 2)) && isHex(line.charAt(p + 3))) {
                        int b = Integer.parseInt(line.substring(p + 2, p + 4), 16);
                        cur.append(b < 0x80 || !utf8 ? (char) b : (char) (ESCAPED_BYTE + b));
                        bytes |= b >= 0x80 && utf8;
                        p += 3;
                    } else if (c == '\\' && p + 1 < n) {
                        p++;
                        char e = line.charAt(p);
                        cur.append(switch (e) {
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case 't' -> '\t';
                            case 'b' -> '\b';
                            case 'a' -> (char) 7;
                            default -> e;
                        });
                    } else if (c == '"') {
                        if (p + 1 < n && !isSpace(line.charAt(p + 1))) {
                            return null;
                        }
                        done = true;
                    } else {
                        cur.append(c);
                    }
                } else if (inSq) {
                    if (p >= n) {
                        return null;
                    }
                    char c = line.charAt(p);
                    if (c == '\\' && p + 1 < n && line.charAt(p + 1) == '\'') {
                        p++;
                        cur.append('\'');
                    } else if (c == '\'') {
                        if (p + 1 < n && !isSpace(line.charAt(p + 1))) {
                            return null;
                        }
                        done = true;
                    } else {
                        cur.append(c);
                    }
                } else {
                    if (p >= n) {
                        break;
                    }
                    char c = line.charAt(p);
                    if (isSpace(c)) {
                        break;
                    } else if (c == '"') {
                        inDq = true;
                    } else if (c == '\'') {
                        inSq = true;
                    } else {
                        cur.append(c);
                    }
                }
                if (p < n) {
                    p++;
                }
            }
            String word = cur.toString();
            if (bytes) { // bytes above 0x7f: read with the text around them as UTF-8
                byte[] b = ClientText.encode(word);
                word = ClientText.decode(b, 0, b.length);
            }
            out.add(word);
        }
    }

    /** Quotes a value for a config file when it is empty or holds spaces or quotes. */
    public static String quoteIfNeeded(String v) {
        if (!v.isEmpty() && v.chars().noneMatch(c -> c <= ' ' || c == '"' || c == '\'' || c == '\\')) {
            return v;
        }
        StringBuilder sb = new StringBuilder("\"");
        for (char c : v.toCharArray()) {
            switch (c) {
                case '"', '\\' -> sb.append('\\').append(c);
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < ' ') {
                        sb.append(String.format("\\x%02x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    /**
     * Always quotes, as Redis's {@code sdscatrepr} (used for command-line option values): the value's bytes, those
     * outside printable ASCII as {@code \xhh}, which {@link #split} reads back into the same value.
     */
    public static String repr(String v) {
        return Repr.of(v);
    }

    /** C's isspace, as sdssplitargs uses it. */
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0B || c == '\f';
    }

    private static boolean isHex(char c) {
        return Character.digit(c, 16) >= 0;
    }
}
