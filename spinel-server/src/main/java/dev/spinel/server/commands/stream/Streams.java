package dev.spinel.server.commands.stream;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.Numbers;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.types.ElementVisitor;
import dev.spinel.store.types.stream.StreamCursor;
import dev.spinel.store.types.stream.StreamId;
import dev.spinel.store.types.stream.StreamValue;

/**
 * Helpers shared by the stream commands: ID parsing with Redis's exact rules and errors, lookups, and
 * the reply shape of entries. Callers hold the key's segment lock. Stateless.
 */
final class Streams {
    static final RedisError INVALID_ID = new RedisError("ERR Invalid stream ID specified as stream command argument");

    private Streams() {
    }

    /** The stream of an entry, or WRONGTYPE. */
    static StreamValue stream(Entry e) {
        if (e.value() instanceof StreamValue s) {
            return s;
        }
        throw Errors.WRONGTYPE;
    }

    /** A parsed ID; {@code seqGiven} is false for the {@code ms-*} form. */
    record Id(long ms, long seq, boolean seqGiven) {
    }

    /**
     * Redis's streamGenericParseIDOrReply: {@code -}/{@code +} (unless strict), {@code ms},
     * {@code ms-seq}, and {@code ms-*} when {@code allowStarSeq}. Numbers are read as string2ull does
     * (strtoull fallback: leading spaces, '+', leading zeros accepted).
     */
    static Id parseId(Args a, int i, long missingSeq, boolean strict, boolean allowStarSeq) {
        return parseId(a.buffer(), a.offset(i), a.length(i), missingSeq, strict, allowStarSeq);
    }

    static Id parseId(byte[] b, int off, int len, long missingSeq, boolean strict, boolean allowStarSeq) {
        if (len > 127) {
            throw INVALID_ID;
        }
        if (len == 1 && (b[off] == '-' || b[off] == '+')) {
            if (strict) {
                throw INVALID_ID;
            }
            return b[off] == '-' ? new Id(0, 0, true) : new Id(-1L, -1L, true);
        }
        int end = off + len;
        int dash = -1;
        for (int p = off; p < end; p++) {
            if (b[p] == '-') {
                dash = p;
                break;
            }
            if (b[p] == 0) { // C strings end at NUL
                end = p;
                break;
            }
        }
        long ms = string2ull(b, off, (dash < 0 ? end : dash) - off);
        if (dash < 0) {
            return new Id(ms, missingSeq, true);
        }
        int so = dash + 1;
        int sl = cstrLen(b, so, end);
        if (allowStarSeq && sl == 1 && b[so] == '*') {
            return new Id(ms, 0, false);
        }
        return new Id(ms, string2ull(b, so, sl), true);
    }

    private static int cstrLen(byte[] b, int from, int end) {
        int p = from;
        while (p < end && b[p] != 0) {
            p++;
        }
        return p - from;
    }

    /** Redis's string2ull: string2ll (non-negative), else strtoull's rules. */
    private static long string2ull(byte[] b, int off, int len) {
        try {
            long v = Numbers.parseLong(b, off, len);
            if (v < 0) {
                throw INVALID_ID;
            }
            return v;
        } catch (NumberFormatException e) {
            // strtoull below
        }
        int p = off;
        int end = off + len;
        while (p < end && (b[p] == ' ' || (b[p] >= '\t' && b[p] <= '\r'))) {
            p++;
        }
        boolean neg = false;
        if (p < end && (b[p] == '+' || b[p] == '-')) {
            neg = b[p] == '-';
            p++;
        }
        if (p >= end) {
            throw INVALID_ID;
        }
        long v = 0;
        for (; p < end; p++) {
            int d = b[p] - '0';
            if (d < 0 || d > 9) {
                throw INVALID_ID;
            }
            long hi = Math.unsignedMultiplyHigh(v, 10);
            long lo = v * 10;
            long sum = lo + d;
            if (hi != 0 || Long.compareUnsigned(sum, lo) < 0) {
                throw INVALID_ID; // ERANGE
            }
            v = sum;
        }
        return neg ? -v : v;
    }

    /** Redis's streamParseIntervalIDOrReply: a {@code (} prefix makes the bound exclusive (strict ID then). */
    static Id parseInterval(Args a, int i, long missingSeq, boolean[] exclusive) {
        int len = a.length(i);
        byte[] b = a.buffer();
        int off = a.offset(i);
        exclusive[0] = len > 1 && b[off] == '(';
        if (exclusive[0]) {
            return parseId(b, off + 1, len - 1, missingSeq, true, false);
        }
        return parseId(b, off, len, missingSeq, false, false);
    }

    /** Writes {@code ms-seq} as a bulk string. */
    static void id(ReplyBuffer out, long ms, long seq) {
        out.bulk(StreamId.format(ms, seq));
    }

    /** Writes the cursor's current entry: {@code [id, [field, value, ...]]}. */
    static void entry(ReplyBuffer out, StreamCursor c, byte[] scratch) {
        out.array(2);
        id(out, c.ms(), c.seq());
        out.array(c.fieldCount() * 2);
        c.visitFields(scratch, bulkWriter(out));
    }

    static ElementVisitor bulkWriter(ReplyBuffer out) {
        return (buf, off, len) -> {
            out.bulk(buf, off, len);
            return true;
        };
    }

    /**
     * Replies with the entries of [start, end] (at most {@code count}, 0 = all), as XRANGE does;
     * returns how many.
     */
    static int range(ReplyBuffer out, StreamValue s, long sMs, long sSeq, long eMs, long eSeq, long count, boolean rev) {
        int n = 0;
        StreamCursor c = s.cursor(sMs, sSeq, eMs, eSeq, rev);
        while ((count == 0 || n < count) && c.next()) {
            n++;
        }
        out.array(n);
        c = s.cursor(sMs, sSeq, eMs, eSeq, rev);
        byte[] scratch = new byte[24];
        for (int i = 0; i < n && c.next(); i++) {
            entry(out, c, scratch);
        }
        return n;
    }

    /** The stream at key argument {@code i} for a write, or {@code null} (WRONGTYPE if another type). */
    static StreamValue write(Session s, Segment seg, Args a, int i, int hash) {
        Entry e = Keys.write(s, seg, a, i, hash);
        return e == null ? null : stream(e);
    }

    /** The stream at key argument {@code i} for a read, or {@code null} (WRONGTYPE if another type). */
    static StreamValue read(Session s, Segment seg, Args a, int i, int hash) {
        Entry e = Keys.read(s, seg, a, i, hash);
        return e == null ? null : stream(e);
    }

    /** Redis's streamIncrID on (ms, seq) held in a two-long array; false on overflow. */
    static boolean incr(long[] id) {
        if (id[1] == -1L) {
            if (id[0] == -1L) {
                return false;
            }
            id[0]++;
            id[1] = 0;
        } else {
            id[1]++;
        }
        return true;
    }

    /** Redis's streamDecrID; false on underflow. */
    static boolean decr(long[] id) {
        if (id[1] == 0) {
            if (id[0] == 0) {
                return false;
            }
            id[0]--;
            id[1] = -1L;
        } else {
            id[1]--;
        }
        return true;
    }
}
