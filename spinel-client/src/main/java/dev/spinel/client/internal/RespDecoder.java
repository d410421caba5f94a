package dev.spinel.client.internal;

import dev.spinel.protocol.RespValue;
import io.netty.buffer.ByteBuf;
import io.netty.util.ByteProcessor;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Incremental RESP2/RESP3 reply decoder: an explicit state machine that keeps partial aggregates on a
 * stack and a pending bulk length, so a reply split across any number of reads is parsed exactly once
 * (no rescans of what was already consumed). {@link #decode} consumes bytes from the buffer as it goes
 * and returns one complete top-level value, or {@code null} when more bytes are needed.
 *
 * <p>Frequent replies ({@code +OK}, {@code +PONG}, {@code +QUEUED}, null, small integers) are shared
 * instances. RESP3 attributes ({@code |}) are read and dropped, as a client that does not ask for them must.
 *
 * <p>Not thread-safe: one instance per connection, used only on its event loop.
 */
public final class RespDecoder {
    /** Longest line (type byte to CRLF) accepted; real lines are short (lengths, numbers, simple strings). */
    static final int MAX_LINE = 64 * 1024;
    /** Largest bulk accepted: Redis's proto-max-bulk-len default. */
    static final long MAX_BULK = 512L * 1024 * 1024;

    static final RespValue OK = new RespValue.SimpleString("OK");
    static final RespValue PONG = new RespValue.SimpleString("PONG");
    static final RespValue QUEUED = new RespValue.SimpleString("QUEUED");
    static final RespValue NULL = new RespValue.Null();
    private static final RespValue.Integer[] SMALL = new RespValue.Integer[1025];

    static {
        for (int i = 0; i < SMALL.length; i++) {
            SMALL[i] = new RespValue.Integer(i - 1);
        }
    }

    /** An aggregate being filled. */
    private static final class Frame {
        final byte type;
        int remaining;
        final List<RespValue> items;

        Frame(byte type, int count) {
            this.type = type;
            this.remaining = count;
            this.items = new ArrayList<>(Math.min(count, 1024));
        }
    }

    private Frame[] stack = new Frame[8];
    private int depth;
    private byte bulkType;
    private int bulkLength = -1;

    /** Reads one complete value from {@code in}, or returns {@code null} having consumed what it could. */
    public RespValue decode(ByteBuf in) {
        while (true) {
            RespValue v;
            if (bulkLength >= 0) {
                if (in.readableBytes() < bulkLength + 2) {
                    return null;
                }
                v = bulk(in);
            } else {
                int lf = in.forEachByte(in.readerIndex(), in.readableBytes(), ByteProcessor.FIND_LF);
                if (lf < 0) {
                    if (in.readableBytes() > MAX_LINE) {
                        throw new ProtocolError("reply line longer than " + MAX_LINE + " bytes");
                    }
                    return null;
                }
                v = line(in, lf);
                if (v == null) {
                    continue; // a bulk header or the start of an aggregate
                }
            }
            v = complete(v);
            if (v != null) {
                return v;
            }
        }
    }

    /** Forgets any partial value (after the connection is lost). */
    public void reset() {
        depth = 0;
        bulkLength = -1;
        for (int i = 0; i < stack.length; i++) {
            stack[i] = null;
        }
    }

    /** Parses the line ending at {@code lf}; returns a scalar, or null after starting a bulk or an aggregate. */
    private RespValue line(ByteBuf in, int lf) {
        int start = in.readerIndex();
        if (lf == start || in.getByte(lf - 1) != '\r') {
            throw new ProtocolError("line not terminated by CRLF");
        }
        byte type = in.getByte(start);
        int from = start + 1;
        int to = lf - 1; // index of '\r'
        in.readerIndex(lf + 1);
        switch (type) {
            case '+':
                return simple(in, from, to);
            case '-':
                return new RespValue.ErrorReply(in.toString(from, to - from, StandardCharsets.UTF_8));
            case ':': {
                long n = parseLong(in, from, to);
                return n >= -1 && n < SMALL.length - 1 ? SMALL[(int) n + 1] : new RespValue.Integer(n);
            }
            case '_':
                return NULL;
            case '#':
                return new RespValue.BooleanValue(to - from == 1 && in.getByte(from) == 't');
            case ',':
                return new RespValue.DoubleValue(parseDouble(in.toString(from, to - from, StandardCharsets.US_ASCII)));
            case '(':
                return new RespValue.BigNumber(in.toString(from, to - from, StandardCharsets.US_ASCII));
            case '$', '!', '=': {
                long n = parseLong(in, from, to);
                if (n < 0) {
                    return NULL;
                }
                if (n > MAX_BULK) {
                    throw new ProtocolError("bulk length " + n + " too large");
                }
                bulkType = type;
                bulkLength = (int) n;
                return null;
            }
            case '*', '~', '>', '%', '|': {
                long n = parseLong(in, from, to);
                if (n < 0) {
                    return NULL;
                }
                long count = type == '%' || type == '|' ? n * 2 : n;
                if (count > Integer.MAX_VALUE - 8) {
                    throw new ProtocolError("aggregate length " + n + " too large");
                }
                if (count == 0) {
                    return aggregate(type, List.of());
                }
                push(new Frame(type, (int) count));
                return null;
            }
            default:
                throw new ProtocolError("bad reply type byte 0x" + Integer.toHexString(type & 0xff));
        }
    }

    private RespValue bulk(ByteBuf in) {
        int n = bulkLength;
        bulkLength = -1;
        byte[] b = new byte[n];
        in.readBytes(b);
        if (in.readByte() != '\r' || in.readByte() != '\n') {
            throw new ProtocolError("bulk string not terminated by CRLF");
        }
        return switch (bulkType) {
            case '$' -> new RespValue.BulkString(b);
            case '!' -> new RespValue.ErrorReply(new String(b, StandardCharsets.UTF_8));
            default -> {
                String s = new String(b, StandardCharsets.UTF_8);
                yield s.length() >= 4 && s.charAt(3) == ':'
                        ? new RespValue.Verbatim(s.substring(0, 3), s.substring(4))
                        : new RespValue.Verbatim("txt", s);
            }
        };
    }

    /** Adds a finished value to the enclosing aggregates; returns the top-level value once it is whole. */
    private RespValue complete(RespValue v) {
        while (depth > 0) {
            Frame top = stack[depth - 1];
            top.items.add(v);
            if (--top.remaining > 0) {
                return null;
            }
            stack[--depth] = null;
            if (top.type == '|') {
                return null; // attribute: metadata about the next value, which follows; drop it
            }
            v = aggregate(top.type, top.items);
        }
        return v;
    }

    private static RespValue aggregate(byte type, List<RespValue> items) {
        return switch (type) {
            case '*' -> new RespValue.Array(items);
            case '~' -> new RespValue.SetValue(items);
            case '>' -> new RespValue.Push(items);
            default -> new RespValue.MapValue(items);
        };
    }

    private void push(Frame f) {
        if (depth == stack.length) {
            if (depth >= 1024) {
                throw new ProtocolError("reply nested deeper than 1024");
            }
            stack = Arrays.copyOf(stack, depth * 2);
        }
        stack[depth++] = f;
    }

    private static RespValue simple(ByteBuf in, int from, int to) {
        int len = to - from;
        if (len == 2 && in.getByte(from) == 'O' && in.getByte(from + 1) == 'K') {
            return OK;
        }
        if (len == 4 && in.getInt(from) == 0x504f4e47) { // "PONG"
            return PONG;
        }
        if (len == 6 && in.getInt(from) == 0x51554555 && in.getShort(from + 4) == 0x4544) { // "QUEUED"
            return QUEUED;
        }
        return new RespValue.SimpleString(in.toString(from, len, StandardCharsets.UTF_8));
    }

    private static long parseLong(ByteBuf in, int from, int to) {
        if (from >= to) {
            throw new ProtocolError("empty number");
        }
        boolean neg = in.getByte(from) == '-';
        int i = neg ? from + 1 : from;
        if (i >= to || to - i > 19) {
            throw new ProtocolError("bad number");
        }
        long n = 0;
        for (; i < to; i++) {
            int d = in.getByte(i) - '0';
            if (d < 0 || d > 9) {
                throw new ProtocolError("bad number");
            }
            n = n * 10 + d;
        }
        return neg ? -n : n;
    }

    private static double parseDouble(String s) {
        return switch (s) {
            case "inf" -> Double.POSITIVE_INFINITY;
            case "-inf" -> Double.NEGATIVE_INFINITY;
            case "nan" -> Double.NaN;
            default -> Double.parseDouble(s);
        };
    }
}
