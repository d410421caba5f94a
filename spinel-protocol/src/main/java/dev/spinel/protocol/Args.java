package dev.spinel.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The arguments of one command, as slices of the connection's receive buffer: no copy, no
 * {@code String}. Argument 0 is the command name. Valid until the next command is parsed; callers
 * that keep an argument (a key or value to store) take a {@link #copy(int)}.
 *
 * <p>Not thread-safe: owned by one connection.
 */
public final class Args {
    private byte[] buf;
    private int[] off = new int[16];
    private int[] len = new int[16];
    private int count;

    public int count() {
        return count;
    }

    public byte[] buffer() {
        return buf;
    }

    public int offset(int i) {
        return off[i];
    }

    public int length(int i) {
        return len[i];
    }

    public byte[] copy(int i) {
        return Arrays.copyOfRange(buf, off[i], off[i] + len[i]);
    }

    /** For replies and rare paths (config values, client names); not for the hot path. */
    public String string(int i) {
        return new String(buf, off[i], len[i], StandardCharsets.UTF_8);
    }

    /**
     * Argument {@code i} as an error text quotes it (Redis's {@code %s}): up to a NUL, its bytes kept exactly
     * through {@link ClientText}, so that {@link ReplyBuffer#error} sends them back as the client sent them.
     */
    public String cString(int i) {
        return ClientText.cString(buf, off[i], len[i]);
    }

    public byte byteAt(int i, int pos) {
        return buf[off[i] + pos];
    }

    /** True when argument {@code i} equals {@code upper} ignoring ASCII case; {@code upper} is upper-case. */
    public boolean is(int i, byte[] upper) {
        int n = len[i];
        if (n != upper.length) {
            return false;
        }
        int o = off[i];
        for (int k = 0; k < n; k++) {
            int c = buf[o + k];
            if (c >= 'a' && c <= 'z') {
                c -= 32;
            }
            if (c != upper[k]) {
                return false;
            }
        }
        return true;
    }

    /** Case-insensitive comparison with an ASCII literal; allocation-free. */
    public boolean is(int i, String upperAscii) {
        int n = len[i];
        if (n != upperAscii.length()) {
            return false;
        }
        int o = off[i];
        for (int k = 0; k < n; k++) {
            int c = buf[o + k];
            if (c >= 'a' && c <= 'z') {
                c -= 32;
            }
            if (c != upperAscii.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    public boolean equalsBytes(int i, byte[] other) {
        return Arrays.equals(buf, off[i], off[i] + len[i], other, 0, other.length);
    }

    /** Parses a strict Redis integer (as {@code string2ll}); throws {@link NumberFormatException}. */
    public long parseLong(int i) {
        return Numbers.parseLong(buf, off[i], len[i]);
    }

    /** Parses a Redis double (as {@code strtold} with Redis's checks); throws {@link NumberFormatException}. */
    public double parseDouble(int i) {
        return Numbers.parseDouble(buf, off[i], len[i]);
    }

    /**
     * A view of arguments {@code from..count-1} as arguments of their own (argument {@code from} becomes 0),
     * sharing the buffer: for commands that take another command as arguments (COMMAND GETKEYS). Allocates.
     */
    public Args tail(int from) {
        Args t = new Args();
        t.reset(buf);
        for (int i = from; i < count; i++) {
            t.add(off[i], len[i]);
        }
        return t;
    }

    // ---- filled by the parser ----

    void reset(byte[] buffer) {
        this.buf = buffer;
        this.count = 0;
    }

    void setBuffer(byte[] buffer) {
        this.buf = buffer;
    }

    void add(int offset, int length) {
        if (count == off.length) {
            off = Arrays.copyOf(off, count * 2);
            len = Arrays.copyOf(len, count * 2);
        }
        off[count] = offset;
        len[count] = length;
        count++;
    }

    void shift(int delta) {
        for (int k = 0; k < count; k++) {
            off[k] -= delta;
        }
    }

    /** Builds arguments from byte arrays: for tests, scripts and embedded callers. */
    public static Args of(byte[]... parts) {
        int total = 0;
        for (byte[] p : parts) {
            total += p.length;
        }
        byte[] joined = new byte[total];
        Args a = new Args();
        a.reset(joined);
        int pos = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, joined, pos, p.length);
            a.add(pos, p.length);
            pos += p.length;
        }
        return a;
    }

    public static Args of(String... parts) {
        byte[][] b = new byte[parts.length][];
        for (int i = 0; i < parts.length; i++) {
            b[i] = parts[i].getBytes(StandardCharsets.UTF_8);
        }
        return of(b);
    }
}
