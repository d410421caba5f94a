package dev.spinel.server.config;

import java.util.ArrayList;
import java.util.List;

/** Splitting and quoting of config lines, with the rules of Redis's {@code sdssplitargs}. */
public final class Quoting {
    private Quoting() {
    }

    /** Splits a config line into words; {@code null} when quotes are unbalanced. */
    public static List<String> split(String line) {
        List<String> out = new ArrayList<>();
        int p = 0;
        int n = line.length();
        while (true) {
            while (p < n && Character.isWhitespace(line.charAt(p))) {
                p++;
            }
            if (p >= n) {
                return out;
            }
            StringBuilder cur = new StringBuilder();
            boolean inDq = false;
            boolean inSq = false;
            boolean done = false;
            while (!done) {
                if (inDq) {
                    if (p >= n) {
                        return null;
                    }
                    char c = line.charAt(p);
                    if (c == '\\' && p + 3 < n && line.charAt(p + 1) == 'x' && isHex(line.charAt(p + 2)) && isHex(line.charAt(p + 3))) {
                        cur.append((char) Integer.parseInt(line.substring(p + 2, p + 4), 16));
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
                        if (p + 1 < n && !Character.isWhitespace(line.charAt(p + 1))) {
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
                        if (p + 1 < n && !Character.isWhitespace(line.charAt(p + 1))) {
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
                    if (Character.isWhitespace(c)) {
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
            out.add(cur.toString());
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

    /** Always quotes, as Redis's {@code sdscatrepr} (used for command-line option values). */
    public static String repr(String v) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : v.toCharArray()) {
            switch (c) {
                case '"', '\\' -> sb.append('\\').append(c);
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case 7 -> sb.append("\\a");
                case '\b' -> sb.append("\\b");
                default -> {
                    if (c < ' ' || c == 127) {
                        sb.append(String.format("\\x%02x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    private static boolean isHex(char c) {
        return Character.digit(c, 16) >= 0;
    }
}
