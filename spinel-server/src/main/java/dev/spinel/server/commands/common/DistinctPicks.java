package dev.spinel.server.commands.common;

import java.util.Arrays;

/**
 * A small open-addressing set of non-negative longs (positions or ranks already picked), used by
 * SRANDMEMBER and ZRANDMEMBER to draw {@code count} distinct elements in O(count) when count is small
 * against the collection (Redis's "case 4"), instead of walking the whole collection. One per call.
 */
public final class DistinctPicks {
    private final long[] slots;
    private final int mask;

    public DistinctPicks(long count) {
        int cap = Integer.highestOneBit((int) Math.max(4, count * 2)) << 1;
        slots = new long[cap];
        Arrays.fill(slots, -1);
        mask = cap - 1;
    }

    /** Adds {@code v}; false if it was already there. */
    public boolean add(long v) {
        int i = (int) (v ^ (v >>> 29)) * 0x9E3779B9 & mask;
        while (slots[i] != -1) {
            if (slots[i] == v) {
                return false;
            }
            i = (i + 1) & mask;
        }
        slots[i] = v;
        return true;
    }
}
