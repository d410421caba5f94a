package dev.spinel.store.types.stream;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A stream entry ID {@code ms-seq}: two unsigned 64-bit numbers compared as one 128-bit number, as
 * Redis's streamID. Used as the key of pending-entry lists; the entries themselves keep their IDs as
 * deltas inside their node and never as objects.
 *
 * <p>Immutable; thread-safe.
 */
public record StreamId(long ms, long seq) implements Comparable<StreamId> {
    public static final StreamId MIN = new StreamId(0, 0);
    public static final StreamId MAX = new StreamId(-1L, -1L);

    public static int compare(long ms1, long seq1, long ms2, long seq2) {
        int c = Long.compareUnsigned(ms1, ms2);
        return c != 0 ? c : Long.compareUnsigned(seq1, seq2);
    }

    @Override
    public int compareTo(StreamId o) {
        return compare(ms, seq, o.ms, o.seq);
    }

    public boolean isZero() {
        return ms == 0 && seq == 0;
    }

    /** {@code ms-seq} in decimal (unsigned), as Redis prints IDs; no intermediate String (every XADD replies one). */
    public static byte[] format(long ms, long seq) {
        byte[] b = new byte[41];
        int n = writeUnsigned(b, 0, ms);
        b[n++] = '-';
        n = writeUnsigned(b, n, seq);
        return Arrays.copyOf(b, n);
    }

    private static int writeUnsigned(byte[] b, int at, long v) {
        if (v < 0) { // above Long.MAX_VALUE: rare, take the slow path
            byte[] s = Long.toUnsignedString(v).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(s, 0, b, at, s.length);
            return at + s.length;
        }
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        for (int i = at + digits - 1; i >= at; i--) {
            b[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        return at + digits;
    }

    public byte[] format() {
        return format(ms, seq);
    }

    @Override
    public String toString() {
        return Long.toUnsignedString(ms) + "-" + Long.toUnsignedString(seq);
    }
}
