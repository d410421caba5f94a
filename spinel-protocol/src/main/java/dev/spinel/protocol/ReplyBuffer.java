package dev.spinel.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A connection's pending replies, encoded in RESP2 or RESP3 straight into a growable byte array.
 * The front end hands the bytes to the socket once per read batch. Methods that differ between
 * protocol versions (null, maps, sets, doubles, booleans, pushes) follow {@link #resp3(boolean)}.
 *
 * <p>Not thread-safe: owned by one connection.
 */
public final class ReplyBuffer {
    private static final byte[] OK = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL_BULK2 = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL_ARRAY2 = "*-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL3 = "_\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[][] SMALL_INTS = new byte[1024][];
    private static final byte[][] SMALL_ARRAYS = new byte[64][];
    private static final byte[][] SMALL_BULK_LENS = new byte[1024][];

    static {
        for (int i = 0; i < SMALL_INTS.length; i++) {
            SMALL_INTS[i] = (":" + i + "\r\n").getBytes(StandardCharsets.US_ASCII);
            SMALL_BULK_LENS[i] = ("$" + i + "\r\n").getBytes(StandardCharsets.US_ASCII);
        }
        for (int i = 0; i < SMALL_ARRAYS.length; i++) {
            SMALL_ARRAYS[i] = ("*" + i + "\r\n").getBytes(StandardCharsets.US_ASCII);
        }
    }

    // No array at first: an idle connection costs nothing here (10k idle clients are a target); a connection
    // borrows its event loop's scratch array while it executes (see borrow), or grows an array of its own.
    private static final int INITIAL = 512;
    private static final int SHRINK_ABOVE = 1024 * 1024;
    private static final byte[] NONE = new byte[0];

    private byte[] buf = NONE;
    private int pos;
    /** The array lent by {@link #borrow}, until {@link #giveBack}; null otherwise. */
    private byte[] borrowed;
    private boolean resp3;
    private GrowthListener growthListener;
    private boolean discarding;

    /**
     * Told before the buffer grows its array (not on every write: growth is rare and amortized), so a
     * connection can check its output limit while a command is still writing a large reply.
     */
    public interface GrowthListener {
        /** {@code adding}: the bytes about to be written, which the array cannot take without growing. */
        void growing(ReplyBuffer out, int adding);
    }

    public void growthListener(GrowthListener listener) {
        this.growthListener = listener;
    }

    /** True when a {@link GrowthListener} watches this buffer. */
    public boolean watched() {
        return growthListener != null;
    }

    /**
     * The client is being closed and its output goes nowhere: drops what was written, and from now on
     * reuses the array from its start instead of growing it, so a command that goes on writing (a
     * transaction's remaining replies) costs no more memory. Never undone.
     */
    public void discard() {
        discarding = true;
        pos = 0;
    }

    /** True after {@link #discard()}: long-running commands may stop writing a reply nobody will read. */
    public boolean discarding() {
        return discarding;
    }

    public boolean resp3() {
        return resp3;
    }

    public void resp3(boolean on) {
        this.resp3 = on;
    }

    public byte[] array() {
        return buf;
    }

    public int size() {
        return pos;
    }

    /** Discards everything written (after it was sent); gives back an oversized array. */
    public void clear() {
        pos = 0;
        if (buf.length > SHRINK_ABOVE && buf != borrowed) {
            buf = NONE;
        }
    }

    /**
     * Writes into {@code scratch} (an array shared by the connections of one thread) from now until
     * {@link #giveBack}, if this buffer holds no array of its own; true when it borrowed. The owner must give it
     * back before anything else may write into {@code scratch}.
     */
    public boolean borrow(byte[] scratch) {
        if (buf.length != 0 || borrowed != null) {
            return false;
        }
        buf = scratch;
        borrowed = scratch;
        return true;
    }

    /** The capacity of this buffer's own array: 0 while it has none or writes into a borrowed one. */
    public int ownCapacity() {
        return buf == borrowed ? 0 : buf.length;
    }

    /** True while a borrowed array is in use (see {@link #borrow}). */
    public boolean borrowing() {
        return borrowed != null;
    }

    /**
     * Ends a {@link #borrow}: what is still unsent moves to an array of its own; an empty buffer keeps no array
     * (also none grown from the borrowed one while borrowing).
     */
    public void giveBack() {
        if (borrowed == null) {
            return;
        }
        if (pos == 0) {
            buf = NONE;
        } else if (buf == borrowed) {
            buf = Arrays.copyOf(buf, Math.max(INITIAL, pos));
        }
        borrowed = null;
    }

    /** Drops what was written after {@code mark} (to replace a partial reply). */
    public void truncate(int mark) {
        pos = mark;
    }

    // ---- raw ----

    public ReplyBuffer raw(byte[] b) {
        return raw(b, 0, b.length);
    }

    public ReplyBuffer raw(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buf, pos, len);
        pos += len;
        return this;
    }

    private void rawByte(byte b) {
        ensure(1);
        buf[pos++] = b;
    }

    private void crlf() {
        ensure(2);
        buf[pos++] = '\r';
        buf[pos++] = '\n';
    }

    private void prefixed(byte prefix, long n) {
        ensure(22);
        buf[pos++] = prefix;
        pos = Numbers.writeLong(buf, pos, n);
        buf[pos++] = '\r';
        buf[pos++] = '\n';
    }

    // ---- simple types ----

    public ReplyBuffer ok() {
        return raw(OK);
    }

    /** {@code +text}; text must not contain CR or LF. */
    public ReplyBuffer simple(String text) {
        rawByte((byte) '+');
        writeAscii(text);
        crlf();
        return this;
    }

    public ReplyBuffer simple(byte[] text) {
        rawByte((byte) '+');
        raw(text);
        crlf();
        return this;
    }

    /**
     * An error reply. {@code message} includes its code, e.g. {@code "ERR syntax error"} or
     * {@code "WRONGTYPE Operation against ..."}; as Redis does, CR and LF at its end are dropped and others
     * replaced by spaces. Client bytes quoted through {@link Args#cString} are written back exactly
     * ({@link ClientText}).
     */
    public ReplyBuffer error(String message) {
        rawByte((byte) '-');
        int start = pos;
        raw(ClientText.encode(message));
        while (pos > start && (buf[pos - 1] == '\r' || buf[pos - 1] == '\n')) {
            pos--; // Redis trims line ends off the end of a formatted error before it maps the others to spaces
        }
        for (int k = start; k < pos; k++) {
            if (buf[k] == '\r' || buf[k] == '\n') {
                buf[k] = ' ';
            }
        }
        crlf();
        return this;
    }

    public ReplyBuffer integer(long v) {
        if (v >= 0 && v < SMALL_INTS.length) {
            return raw(SMALL_INTS[(int) v]);
        }
        prefixed((byte) ':', v);
        return this;
    }

    // ---- bulk strings ----

    public ReplyBuffer bulk(byte[] b) {
        return bulk(b, 0, b.length);
    }

    public ReplyBuffer bulk(byte[] b, int off, int len) {
        bulkHeader(len);
        ensure(len + 2);
        System.arraycopy(b, off, buf, pos, len);
        pos += len;
        buf[pos++] = '\r';
        buf[pos++] = '\n';
        return this;
    }

    /**
     * A bulk string of {@code len} bytes that the caller writes itself: writes the header and the final CRLF and
     * returns the offset in {@link #array()} (valid until the next write) where the {@code len} bytes go. Lets
     * a value held in another form than an array (a string in its entry's fields) be copied in once.
     */
    public int bulkSpace(int len) {
        bulkHeader(len);
        ensure(len + 2);
        int at = pos;
        pos += len;
        buf[pos++] = '\r';
        buf[pos++] = '\n';
        return at;
    }

    public ReplyBuffer bulk(String s) {
        return bulk(s.getBytes(StandardCharsets.UTF_8));
    }

    /** The decimal form of {@code v} as a bulk string (e.g. INCRBYFLOAT-style or CONFIG values). */
    public ReplyBuffer bulk(long v) {
        int n = Numbers.digits(v);
        bulkHeader(n);
        ensure(n + 2);
        pos = Numbers.writeLong(buf, pos, v);
        crlf();
        return this;
    }

    private void bulkHeader(int len) {
        if (len < SMALL_BULK_LENS.length) {
            raw(SMALL_BULK_LENS[len]);
        } else {
            prefixed((byte) '$', len);
        }
    }

    /** The null bulk string: {@code $-1} in RESP2, {@code _} in RESP3. */
    public ReplyBuffer nullBulk() {
        return raw(resp3 ? NULL3 : NULL_BULK2);
    }

    /** The null array: {@code *-1} in RESP2, {@code _} in RESP3. */
    public ReplyBuffer nullArray() {
        return raw(resp3 ? NULL3 : NULL_ARRAY2);
    }

    /** Verbatim string in RESP3 ({@code =len\r\ntxt:...}), plain bulk in RESP2. */
    public ReplyBuffer verbatim(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        if (!resp3) {
            return bulk(b);
        }
        prefixed((byte) '=', b.length + 4);
        raw("txt:".getBytes(StandardCharsets.US_ASCII));
        raw(b);
        crlf();
        return this;
    }

    // ---- aggregates ----

    public ReplyBuffer array(int n) {
        if (n >= 0 && n < SMALL_ARRAYS.length) {
            return raw(SMALL_ARRAYS[n]);
        }
        prefixed((byte) '*', n);
        return this;
    }

    /** A map of {@code n} pairs: {@code %n} in RESP3, a flat array of 2n in RESP2. */
    public ReplyBuffer map(int n) {
        if (resp3) {
            prefixed((byte) '%', n);
            return this;
        }
        return array(n * 2);
    }

    /** A set: {@code ~n} in RESP3, an array in RESP2. */
    public ReplyBuffer set(int n) {
        if (resp3) {
            prefixed((byte) '~', n);
            return this;
        }
        return array(n);
    }

    /** A push frame: {@code >n} in RESP3, an array in RESP2. */
    public ReplyBuffer push(int n) {
        if (resp3) {
            prefixed((byte) '>', n);
            return this;
        }
        return array(n);
    }

    /** A double: {@code ,d} in RESP3, a bulk string in RESP2; formatted as Redis 7.0 does (%.17g). */
    public ReplyBuffer doubleValue(double d) {
        if (d == Math.rint(d) && Math.abs(d) < 1e15 && (d != 0 || 1 / d > 0)) {
            // Integral scores (the common case) print as their digits under %.17g: no String, no BigDecimal.
            long v = (long) d;
            if (resp3) {
                prefixed((byte) ',', v);
                return this;
            }
            return bulk(v);
        }
        String s = Numbers.formatDouble(d);
        if (resp3) {
            rawByte((byte) ',');
            writeAscii(s);
            crlf();
            return this;
        }
        return bulk(s.getBytes(StandardCharsets.US_ASCII));
    }

    /** A boolean: {@code #t}/{@code #f} in RESP3, {@code :1}/{@code :0} in RESP2. */
    public ReplyBuffer bool(boolean b) {
        if (resp3) {
            return raw((b ? "#t\r\n" : "#f\r\n").getBytes(StandardCharsets.US_ASCII));
        }
        return integer(b ? 1 : 0);
    }

    // ---- internals ----

    private void writeAscii(String s) {
        int n = s.length();
        ensure(n);
        for (int k = 0; k < n; k++) {
            buf[pos++] = (byte) s.charAt(k);
        }
    }

    private void ensure(int n) {
        if (buf.length - pos < n) {
            grow(n);
        }
    }

    private void grow(int n) {
        if (growthListener != null && !discarding && buf.length > 0) { // the first array is no growth of the reply
            growthListener.growing(this, n);
        }
        if (discarding) {
            pos = 0; // the array is never shrunk here: a caller's saved mark stays within it
            if (buf.length >= n) {
                return;
            }
        }
        long want = Math.max(Math.max((long) buf.length * 2, (long) pos + n), INITIAL);
        if (want > Integer.MAX_VALUE - 16) {
            want = Integer.MAX_VALUE - 16;
        }
        buf = Arrays.copyOf(buf, (int) want);
    }
}
