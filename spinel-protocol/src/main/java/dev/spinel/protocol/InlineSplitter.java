package dev.spinel.protocol;

/**
 * Splits an inline request line into arguments with the quoting rules of Redis's
 * {@code sdssplitargs}: double quotes with backslash escapes (\n \r \t \b \a \xHH), single quotes
 * with \' only, and a closing quote that must be followed by a space or the end of the line.
 *
 * <p>Arguments are decoded into a scratch array owned by this splitter. Not thread-safe.
 */
final class InlineSplitter {
    private byte[] scratch = new byte[256];

    void split(byte[] d, int from, int to, Args args) throws ProtocolException {
        if (scratch.length < to - from) {
            scratch = new byte[Math.max(to - from, scratch.length * 2)];
        }
        byte[] out = scratch;
        args.reset(out);
        int w = 0;
        int p = from;
        while (true) {
            while (p < to && isSpace(d[p])) {
                p++;
            }
            if (p >= to) {
                return;
            }
            int start = w;
            boolean inDq = false;
            boolean inSq = false;
            boolean done = false;
            while (!done) {
                if (inDq) {
                    if (p >= to) {
                        throw unbalanced();
                    }
                    byte c = d[p];
                    if (c == '\\' && p + 3 < to && d[p + 1] == 'x' && isHex(d[p + 2]) && isHex(d[p + 3])) {
                        out[w++] = (byte) (hex(d[p + 2]) * 16 + hex(d[p + 3]));
                        p += 3;
                    } else if (c == '\\' && p + 1 < to) {
                        p++;
                        byte e = d[p];
                        out[w++] = switch (e) {
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case 't' -> '\t';
                            case 'b' -> '\b';
                            case 'a' -> 7;
                            default -> e;
                        };
                    } else if (c == '"') {
                        if (p + 1 < to && !isSpace(d[p + 1])) {
                            throw unbalanced();
                        }
                        done = true;
                    } else {
                        out[w++] = c;
                    }
                } else if (inSq) {
                    if (p >= to) {
                        throw unbalanced();
                    }
                    byte c = d[p];
                    if (c == '\\' && p + 1 < to && d[p + 1] == '\'') {
                        p++;
                        out[w++] = '\'';
                    } else if (c == '\'') {
                        if (p + 1 < to && !isSpace(d[p + 1])) {
                            throw unbalanced();
                        }
                        done = true;
                    } else {
                        out[w++] = c;
                    }
                } else {
                    if (p >= to) {
                        done = true;
                        break;
                    }
                    byte c = d[p];
                    switch (c) {
                        case ' ', '\n', '\r', '\t', 0 -> done = true;
                        case '"' -> inDq = true;
                        case '\'' -> inSq = true;
                        default -> out[w++] = c;
                    }
                    if (done) {
                        break;
                    }
                }
                if (p < to) {
                    p++;
                }
            }
            args.add(start, w - start);
        }
    }

    private static ProtocolException unbalanced() {
        return new ProtocolException("Protocol error: unbalanced quotes in request");
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0x0b || c == 0x0c;
    }

    private static boolean isHex(byte c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static int hex(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        return (c | 0x20) - 'a' + 10;
    }
}
