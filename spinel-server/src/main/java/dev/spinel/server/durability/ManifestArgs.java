package dev.spinel.server.durability;

import java.util.ArrayList;
import java.util.List;

/**
 * The word syntax of a manifest line, as Redis reads it (sdssplitargs) and writes it (sdscatrepr for a file
 * name with spaces, quotes or unprintable bytes): words separated by blanks, a word may be "double quoted"
 * with \n \r \t \b \a \\ \" \xHH escapes or 'single quoted' with \' escapes. Names are ISO-8859-1 strings
 * (one char per byte), as file names are bytes to Redis.
 *
 * <p>Thread-safety: stateless.
 */
final class ManifestArgs {
    private ManifestArgs() {
    }

    /** The words of {@code line}, or null when a quote is unbalanced or not followed by a blank (Redis's NULL). */
    static List<String> split(String line) {
        List<String> out = new ArrayList<>();
        int i = 0;
        int n = line.length();
        while (true) {
            while (i < n && isSpace(line.charAt(i))) {
                i++;
            }
            if (i >= n) {
                return out;
            }
            StringBuilder w = new StringBuilder();
            boolean dq = false;
            boolean sq = false;
            while (true) {
                if (i >= n) {
                    if (dq || sq) {
                        return null; // unterminated quotes
                    }
                    break;
                }
                char c = line.charAt(i);
                if (dq) {
                    if (c == '\\' && i + 3 < n && line.charAt(i + 1) == 'x' && hex(line.charAt(i + 2)) >= 0 && hex(line.charAt(i + 3)) >= 0) {
                        w.append((char) (hex(line.charAt(i + 2)) * 16 + hex(line.charAt(i + 3))));
                        i += 3;
                    } else if (c == '\\' && i + 1 < n) {
                        char e = line.charAt(++i);
                        w.append(switch (e) {
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case 't' -> '\t';
                            case 'b' -> '\b';
                            case 'a' -> (char) 7;
                            default -> e;
                        });
                    } else if (c == '"') {
                        if (i + 1 < n && !isSpace(line.charAt(i + 1))) {
                            return null; // closing quote must be followed by a space or nothing
                        }
                        i++;
                        break;
                    } else {
                        w.append(c);
                    }
                } else if (sq) {
                    if (c == '\\' && i + 1 < n && line.charAt(i + 1) == '\'') {
                        i++;
                        w.append('\'');
                    } else if (c == '\'') {
                        if (i + 1 < n && !isSpace(line.charAt(i + 1))) {
                            return null;
                        }
                        i++;
                        break;
                    } else {
                        w.append(c);
                    }
                } else if (isSpace(c)) {
                    break;
                } else if (c == '"') {
                    dq = true;
                } else if (c == '\'') {
                    sq = true;
                } else {
                    w.append(c);
                }
                i++;
            }
            out.add(w.toString());
        }
    }

    /** {@code name} as Redis writes it in a manifest: as is, or quoted with escapes when it needs to be. */
    static String repr(String name) {
        boolean needs = name.isEmpty();
        for (int i = 0; i < name.length() && !needs; i++) {
            char c = name.charAt(i);
            needs = c == '\\' || c == '"' || c < 0x21 || c > 0x7e;
        }
        if (!needs) {
            return name;
        }
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            switch (c) {
                case '\\', '"' -> sb.append('\\').append(c);
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case 7 -> sb.append("\\a");
                case '\b' -> sb.append("\\b");
                default -> {
                    if (c >= 0x20 && c <= 0x7e) {
                        sb.append(c);
                    } else {
                        sb.append(String.format("\\x%02x", (int) c & 0xFF));
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0B || c == '\f';
    }

    private static int hex(char c) {
        return Character.digit(c, 16);
    }

}
