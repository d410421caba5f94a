package dev.spinel.protocol;

/**
 * Bytes quoted as Redis's {@code sdscatrepr} quotes them: in double quotes, {@code \\ \" \n \r \t \a \b} escaped,
 * other bytes outside printable ASCII (32-126) as {@code \xhh}. The inverse of the double-quoted words that
 * {@code sdssplitargs} reads ({@link InlineSplitter}, and the config file's reader). Redis uses it wherever it
 * shows arbitrary bytes on one line: MONITOR's feed, the command-line options it appends to the config text.
 *
 * <p>Stateless and thread-safe.
 */
public final class Repr {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Repr() {
    }

    /** Appends {@code b[off, off + len)}, quoted. */
    public static void append(StringBuilder sb, byte[] b, int off, int len) {
        sb.append('"');
        for (int i = off; i < off + len; i++) {
            int c = b[i] & 0xff;
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '"' -> sb.append("\\\"");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case 7 -> sb.append("\\a");
                case '\b' -> sb.append("\\b");
                default -> {
                    if (c >= 32 && c < 127) {
                        sb.append((char) c);
                    } else {
                        sb.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xf]);
                    }
                }
            }
        }
        sb.append('"');
    }

    /** The bytes of {@code s} ({@link ClientText#encode}: UTF-8, escaped client bytes as themselves), quoted. */
    public static String of(String s) {
        byte[] b = ClientText.encode(s);
        StringBuilder sb = new StringBuilder(b.length + 2);
        append(sb, b, 0, b.length);
        return sb.toString();
    }
}
