package dev.spinel.store.types.stream;

import java.nio.charset.StandardCharsets;

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

    /** {@code ms-seq} in decimal (unsigned), as Redis prints IDs. */
    public static byte[] format(long ms, long seq) {
        return (Long.toUnsignedString(ms) + "-" + Long.toUnsignedString(seq)).getBytes(StandardCharsets.US_ASCII);
    }

    public byte[] format() {
        return format(ms, seq);
    }

    @Override
    public String toString() {
        return Long.toUnsignedString(ms) + "-" + Long.toUnsignedString(seq);
    }
}
