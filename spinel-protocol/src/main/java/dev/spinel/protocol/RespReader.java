package dev.spinel.protocol;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes complete RESP2/RESP3 values from a byte array. For incremental decoding of a stream,
 * {@link #tryRead()} returns {@code null} (and consumes nothing) when the value is not complete yet.
 *
 * <p>Not thread-safe.
 */
public final class RespReader {
    private final byte[] data;
    private final int end;
    private int pos;

    public RespReader(byte[] data) {
        this(data, 0, data.length);
    }

    public RespReader(byte[] data, int off, int len) {
        this.data = data;
        this.pos = off;
        this.end = off + len;
    }

    public int position() {
        return pos;
    }

    public boolean hasMore() {
        return pos < end;
    }

    /** Reads one value; throws {@link IllegalStateException} if the input is incomplete or malformed. */
    public RespValue read() {
        RespValue v = tryRead();
        if (v == null) {
            throw new IllegalStateException("incomplete RESP value at " + pos);
        }
        return v;
    }

    /** Reads one value, or returns {@code null} without consuming anything if it is incomplete. */
    public RespValue tryRead() {
        int start = pos;
        try {
            return value();
        } catch (Incomplete e) {
            pos = start;
            return null;
        }
    }

    private static final class Incomplete extends RuntimeException {
        Incomplete() {
            super(null, null, false, false);
        }
    }

    private static final Incomplete INCOMPLETE = new Incomplete();

    private RespValue value() {
        if (pos >= end) {
            throw INCOMPLETE;
        }
        byte type = data[pos++];
        String line = line();
        return switch (type) {
            case '+' -> new RespValue.SimpleString(line);
            case '-' -> new RespValue.ErrorReply(line);
            case ':' -> new RespValue.Integer(Long.parseLong(line));
            case '(' -> new RespValue.BigNumber(line);
            case '#' -> new RespValue.BooleanValue(line.equals("t"));
            case '_' -> new RespValue.Null();
            case ',' -> new RespValue.DoubleValue(parseDouble(line));
            case '$', '!' -> {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    yield new RespValue.Null();
                }
                byte[] b = bytes(n);
                yield type == '$' ? new RespValue.BulkString(b) : new RespValue.ErrorReply(new String(b, StandardCharsets.UTF_8));
            }
            case '=' -> {
                String s = new String(bytes(Integer.parseInt(line)), StandardCharsets.UTF_8);
                yield new RespValue.Verbatim(s.substring(0, 3), s.substring(4));
            }
            case '*', '~', '>' -> {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    yield new RespValue.Null();
                }
                List<RespValue> items = items(n);
                yield type == '*' ? new RespValue.Array(items) : type == '~' ? new RespValue.SetValue(items) : new RespValue.Push(items);
            }
            case '%', '|' -> new RespValue.MapValue(items(Integer.parseInt(line) * 2));
            default -> throw new IllegalStateException("bad RESP type byte '" + (char) type + "' at " + (pos - 1));
        };
    }

    private List<RespValue> items(int n) {
        List<RespValue> items = new ArrayList<>(Math.min(n, 1024));
        for (int i = 0; i < n; i++) {
            items.add(value());
        }
        return items;
    }

    private static double parseDouble(String s) {
        return switch (s) {
            case "inf" -> Double.POSITIVE_INFINITY;
            case "-inf" -> Double.NEGATIVE_INFINITY;
            case "nan" -> Double.NaN;
            default -> Double.parseDouble(s);
        };
    }

    private String line() {
        for (int k = pos; k < end - 1; k++) {
            if (data[k] == '\r' && data[k + 1] == '\n') {
                String s = new String(data, pos, k - pos, StandardCharsets.UTF_8);
                pos = k + 2;
                return s;
            }
        }
        throw INCOMPLETE;
    }

    private byte[] bytes(int n) {
        if (end - pos < n + 2) {
            throw INCOMPLETE;
        }
        byte[] b = new byte[n];
        System.arraycopy(data, pos, b, 0, n);
        pos += n + 2;
        return b;
    }
}
