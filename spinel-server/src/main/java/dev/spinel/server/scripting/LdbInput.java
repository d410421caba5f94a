package dev.spinel.server.scripting;

/**
 * The Lua debugger's reader of commands (Redis 7.0's ldbReplParseCommand): a RESP array of bulk strings at most
 * 1024 long, each of 1 to 1024 bytes, read from the bytes the caller sent. As forgiving as Redis's own: what comes
 * before the first {@code *} is skipped, the counts are read as C's {@code atoi}, and the text is scanned as a C
 * string (a NUL ends it).
 *
 * <p>Stateless and thread-safe.
 */
final class LdbInput {
    /** A complete command. */
    record Parsed(byte[][] argv) {
    }

    /** The input is no command Redis's reader accepts: the debugging session ends with "protocol error". */
    static final Parsed PROTOCOL_ERROR = new Parsed(null);

    private LdbInput() {
    }

    /** The command at the start of {@code buf[0, len)}, null when more bytes are needed, or {@link #PROTOCOL_ERROR}. */
    static Parsed parse(byte[] buf, int len) {
        if (len == 0) {
            return null;
        }
        int end = cEnd(buf, len); // the C string's end: the first NUL, or len
        int p = indexOf(buf, 0, end, (byte) '*');
        if (p < 0) {
            return PROTOCOL_ERROR;
        }
        int plen = p + 1;
        p = crlf(buf, p, end);
        if (p < 0) {
            return null;
        }
        long argc = atoi(buf, plen, p);
        p += 2;
        if (argc <= 0 || argc > 1024) {
            return PROTOCOL_ERROR;
        }
        byte[][] argv = new byte[(int) argc][];
        for (int n = 0; n < argc; n++) {
            if (p >= len || buf[p] == 0) {
                return null; // the end: more to read
            }
            if (buf[p] != '$') {
                return PROTOCOL_ERROR;
            }
            plen = p + 1;
            p = crlf(buf, p, cEnd(buf, p, len));
            if (p < 0) {
                return null;
            }
            long slen = atoi(buf, plen, p);
            p += 2;
            if (slen <= 0 || slen > 1024) {
                return PROTOCOL_ERROR;
            }
            if (p + slen + 2 > len) {
                return null;
            }
            argv[n] = java.util.Arrays.copyOfRange(buf, p, p + (int) slen);
            p += (int) slen;
            if (buf[p] != '\r' || buf[p + 1] != '\n') {
                return PROTOCOL_ERROR;
            }
            p += 2;
        }
        return new Parsed(argv);
    }

    private static int cEnd(byte[] buf, int len) {
        return cEnd(buf, 0, len);
    }

    private static int cEnd(byte[] buf, int from, int len) {
        for (int i = from; i < len; i++) {
            if (buf[i] == 0) {
                return i;
            }
        }
        return len;
    }

    private static int indexOf(byte[] buf, int from, int end, byte b) {
        for (int i = from; i < end; i++) {
            if (buf[i] == b) {
                return i;
            }
        }
        return -1;
    }

    /** strstr(p, "\r\n") within the C string ending at {@code end}. */
    private static int crlf(byte[] buf, int from, int end) {
        for (int i = from; i + 1 < end; i++) {
            if (buf[i] == '\r' && buf[i + 1] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** C's atoi over {@code buf[from, to)}: leading spaces, a sign, the digits up to the first other byte. */
    static long atoi(byte[] buf, int from, int to) {
        int i = from;
        while (i < to && (buf[i] == ' ' || (buf[i] >= '\t' && buf[i] <= '\r'))) {
            i++;
        }
        boolean negative = false;
        if (i < to && (buf[i] == '-' || buf[i] == '+')) {
            negative = buf[i] == '-';
            i++;
        }
        long v = 0;
        while (i < to && buf[i] >= '0' && buf[i] <= '9') {
            v = v * 10 + (buf[i] - '0');
            if (v > Integer.MAX_VALUE) {
                v = Integer.MAX_VALUE + 1L; // out of int's range: refused by every caller's bound
            }
            i++;
        }
        return negative ? -v : v;
    }
}
