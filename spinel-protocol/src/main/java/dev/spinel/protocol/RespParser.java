package dev.spinel.protocol;

/**
 * Parses client requests, RESP multibulk or inline, from a {@link QueryBuffer} into {@link Args}
 * slices without copying. An explicit state machine: a multibulk request that arrives in pieces is
 * resumed where it stopped, so a huge request is scanned once, not once per read.
 *
 * <p>Limits and error texts are Redis 7.0's: inline requests and length lines up to 64 KiB, at most
 * {@code Integer.MAX_VALUE} arguments, bulk lengths up to {@code proto-max-bulk-len}. Nothing is
 * allocated from a length the client merely claims.
 *
 * <p>Not thread-safe: one parser per connection.
 */
public final class RespParser {
    public static final int INLINE_MAX = 64 * 1024;
    /**
     * The longest inline line accepted, newline included: Redis refuses one when its query buffer holds more than
     * {@link #INLINE_MAX} without a newline, and it reads 16 KiB at a time, so a line that arrived whole is refused
     * when its newline is not in the first 80 KiB (a 70 KB line passes, a 90 KB one does not). A read of Spinel's
     * may bring more than 16 KiB, so a line whose newline it brought is refused past this length too. (A read that
     * stops between 64 and 80 KiB of a line without its newline refuses it, as Redis does when its read stops there.)
     */
    static final int INLINE_LINE_MAX = INLINE_MAX + 16 * 1024;

    private final QueryBuffer in;
    private final Args args;
    private long maxBulkLength = 512L * 1024 * 1024;
    private boolean unauthenticated;
    private final InlineSplitter inline = new InlineSplitter();

    // multibulk state, positions absolute in the buffer's current array
    private boolean inMultibulk;
    private long expected;
    private long bulkLength = -1;
    private int scan;

    public RespParser(QueryBuffer in, Args args) {
        this.in = in;
        this.args = args;
        in.attach(this);
    }

    public void maxBulkLength(long bytes) {
        this.maxBulkLength = bytes;
    }

    /**
     * Whether the client must still authenticate: Redis then refuses more than 10 arguments and bulks
     * longer than 16384 bytes before parsing them, so an unauthenticated client cannot make it buffer much.
     */
    public void unauthenticated(boolean yes) {
        this.unauthenticated = yes;
    }

    /** True while a multibulk request has started but not completed. */
    public boolean inProgress() {
        return inMultibulk;
    }

    /**
     * Parses the next complete request. Returns {@code true} when {@link Args} holds one (possibly
     * with zero arguments for an empty inline line or {@code *0}, which callers skip), {@code false}
     * when more bytes are needed.
     */
    public boolean next() throws ProtocolException {
        byte[] d = in.data;
        int end = in.writePos;
        if (!inMultibulk) {
            int p = in.readPos;
            if (p >= end) {
                return false;
            }
            if (d[p] != '*') {
                return parseInline(d, p, end);
            }
            int cr = findCr(d, p + 1, end);
            if (cr < 0) {
                if (end - p > INLINE_MAX) {
                    throw new ProtocolException("Protocol error: too big mbulk count string");
                }
                return false;
            }
            if (cr + 1 >= end) {
                return false; // the byte after '\r' has not arrived
            }
            long n = parseLength(d, p + 1, cr);
            if (n == Long.MIN_VALUE || n > Integer.MAX_VALUE) {
                throw new ProtocolException("Protocol error: invalid multibulk length");
            }
            if (n > 10 && unauthenticated) {
                throw new ProtocolException("Protocol error: unauthenticated multibulk length");
            }
            args.reset(d);
            if (n <= 0) {
                in.readPos = cr + 2;
                return true;
            }
            inMultibulk = true;
            expected = n;
            bulkLength = -1;
            scan = cr + 2;
        }
        args.setBuffer(d);
        int p = scan;
        while (args.count() < expected) {
            if (bulkLength < 0) {
                if (p >= end) {
                    scan = p;
                    return false;
                }
                int cr = findCr(d, p, end);
                if (cr < 0) {
                    if (end - p > INLINE_MAX) {
                        throw new ProtocolException("Protocol error: too big bulk count string");
                    }
                    scan = p;
                    return false;
                }
                if (cr + 1 >= end) {
                    scan = p;
                    return false;
                }
                // Redis looks for the line end before it looks at the type byte: "X" alone waits.
                if (d[p] != '$') {
                    throw new ProtocolException("Protocol error: expected '$', got '" + (char) (d[p] & 0xff) + "'");
                }
                long n = parseLength(d, p + 1, cr);
                if (n < 0 || n > maxBulkLength) {
                    throw new ProtocolException("Protocol error: invalid bulk length");
                }
                if (n > 16384 && unauthenticated) {
                    throw new ProtocolException("Protocol error: unauthenticated bulk length");
                }
                bulkLength = n;
                p = cr + 2;
            }
            if ((long) end - p < bulkLength + 2) {
                scan = p;
                return false;
            }
            args.add(p, (int) bulkLength);
            p += (int) bulkLength + 2;
            bulkLength = -1;
        }
        inMultibulk = false;
        in.readPos = p;
        return true;
    }

    /**
     * Bytes received and not yet parsed: what Redis 7.0 counts against {@code client-query-buffer-limit}
     * (the arguments of a request in progress that are already parsed are not counted, as Redis has
     * moved them out of its query buffer by then).
     */
    public long unparsedBytes() {
        return in.writePos - (inMultibulk ? scan : in.readPos);
    }

    /** The length of the argument whose bytes are arriving, or -1 when none is (no multibulk, or between arguments). */
    public long bulkInProgress() {
        return inMultibulk ? bulkLength : -1;
    }

    /** How many more bytes the request in progress needs at least (a hint for read sizing). */
    public long bytesWanted() {
        if (!inMultibulk || bulkLength < 0) {
            return 0;
        }
        return Math.max(0, bulkLength + 2 - (in.writePos - scan));
    }

    private boolean parseInline(byte[] d, int p, int end) throws ProtocolException {
        int nl = -1;
        for (int k = p; k < end; k++) {
            byte c = d[k];
            if (c == '\n') {
                nl = k;
                break;
            }
            if (c == 0) {
                break; // Redis's strchr stops at NUL: the line never completes
            }
        }
        if (nl < 0 ? end - p > INLINE_MAX : nl - p >= INLINE_LINE_MAX) {
            throw new ProtocolException("Protocol error: too big inline request");
        }
        if (nl < 0) {
            return false;
        }
        int lineEnd = nl > p && d[nl - 1] == '\r' ? nl - 1 : nl;
        inline.split(d, p, lineEnd, args);
        in.readPos = nl + 1;
        return true;
    }

    /** Called by the buffer when it moved its live bytes {@code delta} positions towards the front. */
    void shifted(int delta) {
        if (inMultibulk) {
            scan -= delta;
            args.shift(delta);
            args.setBuffer(in.data);
        }
    }

    /**
     * The first '\r' in {@code [from, end)}, or -1. Like Redis's {@code strchr} on its NUL-terminated
     * query buffer, the search stops at a NUL byte (the request then waits, up to the 64 KiB limit).
     * The byte after '\r' is skipped unchecked, as Redis does.
     */
    private static int findCr(byte[] d, int from, int end) {
        for (int k = from; k < end; k++) {
            byte c = d[k];
            if (c == '\r') {
                return k;
            }
            if (c == 0) {
                return -1;
            }
        }
        return -1;
    }

    /** Parses the digits of a length line; {@code Long.MIN_VALUE} when malformed. */
    private static long parseLength(byte[] d, int from, int to) {
        if (from >= to || to - from > 20) {
            return Long.MIN_VALUE;
        }
        try {
            return Numbers.parseLong(d, from, to - from);
        } catch (NumberFormatException e) {
            return Long.MIN_VALUE;
        }
    }
}
