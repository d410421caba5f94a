package dev.spinel.store;

import java.util.Arrays;

/**
 * A string value that APPEND, SETRANGE, SETBIT and BITFIELD change in place, with spare capacity as Redis's sds
 * keeps (doubled up to {@value #MAX_PREALLOC} bytes, then a megabyte more per growth), so that a sequence of
 * appends or of bit writes past the end costs O(change) each instead of a copy of the whole string. Only those
 * commands make one ({@link InPlaceStrings#grow}); every other string is an immutable {@code byte[]}. The bytes
 * past {@link #length()} are always zero, so growing needs no fill.
 *
 * <p>Ownership: the value belongs to the one entry holding it until it is {@linkplain #freeze() frozen}. Anything
 * that keeps a reference past the segment's lock (a snapshot's copy-on-write capture) freezes it first; a frozen
 * value never changes again, and the next in-place write copies it into a new one. Readers that take no lock
 * never see one ({@link OptimisticReads} takes the lock for it) and {@link Entry#value()} hands out a trimmed copy.
 *
 * <p>Thread-safety: guarded by the lock of the segment holding its entry; once frozen, immutable and readable by
 * any thread that obtained it under that lock.
 */
public final class GrowableString {
    /** Growth beyond this length adds this much instead of doubling (Redis's SDS_MAX_PREALLOC). */
    public static final int MAX_PREALLOC = 1 << 20;
    /** The largest array the JVM reliably allocates. */
    private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;
    /** Object header, the array reference, the length and the flag. */
    private static final int SHALLOW = 24;

    private byte[] buf;
    private int length;
    private boolean frozen;

    /** A copy of {@code src[0, length)} with room for {@code target} bytes (Redis's greedy growth when it grows). */
    GrowableString(byte[] src, int length, int target) {
        this.buf = Arrays.copyOf(src, target > length ? capacityFor(target) : length);
        this.length = Math.max(length, target);
    }

    /** Redis's sdsMakeRoomFor: twice the new length under a megabyte, else a megabyte more; within an array's limit. */
    static int capacityFor(int target) {
        long c = target < MAX_PREALLOC ? 2L * target : (long) target + MAX_PREALLOC;
        return (int) Math.min(c, MAX_ARRAY);
    }

    /** The string's length in bytes. */
    public int length() {
        return length;
    }

    /**
     * The array whose first {@link #length()} bytes are the string (it may be longer). Under the segment's lock
     * only; a command writes into it only after {@link InPlaceStrings#grow} returned this value for the write.
     */
    public byte[] array() {
        return buf;
    }

    /** Allocated bytes (the capacity, as Redis's MEMORY USAGE counts an sds's allocation). */
    public int capacity() {
        return buf.length;
    }

    /** Marks the value as held elsewhere too: it never changes again. */
    public void freeze() {
        frozen = true;
    }

    boolean frozen() {
        return frozen;
    }

    /** A new array of exactly the string's bytes. */
    byte[] toArray() {
        return Arrays.copyOf(buf, length);
    }

    /** Heap bytes of this object and its array. */
    long footprint() {
        return SHALLOW + Sizes.array(buf.length);
    }

    /** Lengthens the string to {@code target} zero bytes past the old end; returns the change of {@link #footprint()}. */
    long growTo(int target) {
        if (target <= length) {
            return 0;
        }
        long delta = 0;
        if (target > buf.length) {
            long before = footprint();
            buf = Arrays.copyOf(buf, capacityFor(target));
            delta = footprint() - before;
        }
        length = target;
        return delta;
    }
}
