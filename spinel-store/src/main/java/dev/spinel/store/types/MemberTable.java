package dev.spinel.store.types;

import dev.spinel.store.KeyHash;

import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * An open-addressing hash table of byte-string members, optionally with a {@code double} per member
 * (the member→score map of a skip-list sorted set). Linear probing over parallel arrays: no node object
 * and no boxing per member. Deletion leaves a tombstone so that members never move except on resize;
 * that keeps SSCAN's guarantee (a member present for the whole scan is returned) because the scan walks
 * home buckets in Redis's reverse-binary order and, for each, the probe run starting there.
 *
 * <p>Not thread-safe: guarded by the lock of the segment holding the key.
 */
final class MemberTable {
    private static final byte[] TOMBSTONE = new byte[0];
    private static final int MIN_CAPACITY = 8;

    private byte[][] members;
    private int[] hashes;
    private double[] values;
    private int size;
    private int used; // live + tombstones
    private long memberBytes; // heap bytes of the live member arrays, so memoryUsage() is O(1)
    private final boolean withValues;

    MemberTable(int expected, boolean withValues) {
        this.withValues = withValues;
        allocate(capacityFor(expected));
    }

    private static int capacityFor(int n) {
        int c = MIN_CAPACITY;
        while (c < n * 2L) {
            c <<= 1;
        }
        return c;
    }

    private void allocate(int capacity) {
        members = new byte[capacity][];
        hashes = new int[capacity];
        values = withValues ? new double[capacity] : null;
        used = 0;
        size = 0;
    }

    int size() {
        return size;
    }

    static int hash(byte[] b, int off, int len) {
        return KeyHash.hash(b, off, len);
    }

    /** Slot of the member, or -1. */
    int find(byte[] b, int off, int len) {
        int h = hash(b, off, len);
        int mask = members.length - 1;
        for (int i = h & mask; ; i = (i + 1) & mask) {
            byte[] m = members[i];
            if (m == null) {
                return -1;
            }
            if (m != TOMBSTONE && hashes[i] == h && m.length == len && Arrays.equals(m, 0, len, b, off, off + len)) {
                return i;
            }
        }
    }

    boolean contains(byte[] b, int off, int len) {
        return find(b, off, len) >= 0;
    }

    byte[] memberAt(int slot) {
        return members[slot];
    }

    double valueAt(int slot) {
        return values[slot];
    }

    void setValue(int slot, double v) {
        values[slot] = v;
    }

    /** Adds a member (kept by reference); returns false if it was present (value then unchanged). */
    boolean add(byte[] member, double value) {
        if (find(member, 0, member.length) >= 0) {
            return false;
        }
        if ((used + 1) * 4L > members.length * 3L) {
            resize(capacityFor(size + 1));
        }
        int h = hash(member, 0, member.length);
        int mask = members.length - 1;
        int i = h & mask;
        while (members[i] != null && members[i] != TOMBSTONE) {
            i = (i + 1) & mask;
        }
        if (members[i] == null) {
            used++;
        }
        members[i] = member;
        hashes[i] = h;
        if (withValues) {
            values[i] = value;
        }
        size++;
        memberBytes += arrayBytes(member);
        return true;
    }

    boolean remove(byte[] b, int off, int len) {
        int i = find(b, off, len);
        if (i < 0) {
            return false;
        }
        removeSlot(i);
        return true;
    }

    static long arrayBytes(byte[] m) {
        return (12 + m.length + 7) & ~7L;
    }

    void removeSlot(int i) {
        memberBytes -= arrayBytes(members[i]);
        members[i] = TOMBSTONE;
        size--;
        if (members.length > MIN_CAPACITY && size * 8L < members.length) {
            resize(capacityFor(size));
        }
    }

    private void resize(int capacity) {
        byte[][] oldM = members;
        int[] oldH = hashes;
        double[] oldV = values;
        allocate(capacity);
        int mask = capacity - 1;
        for (int k = 0; k < oldM.length; k++) {
            byte[] m = oldM[k];
            if (m != null && m != TOMBSTONE) {
                int i = oldH[k] & mask;
                while (members[i] != null) {
                    i = (i + 1) & mask;
                }
                members[i] = m;
                hashes[i] = oldH[k];
                if (withValues) {
                    values[i] = oldV[k];
                }
                used++;
                size++;
            }
        }
    }

    /** Slot of a random live member (the table must not be empty). */
    int randomSlot(RandomGenerator rnd) {
        int mask = members.length - 1;
        while (true) {
            int i = rnd.nextInt(members.length) & mask;
            byte[] m = members[i];
            if (m != null && m != TOMBSTONE) {
                return i;
            }
        }
    }

    /** Iteration by slot: the first live slot at or after {@code from}, or -1. */
    int nextSlot(int from) {
        for (int i = from; i < members.length; i++) {
            byte[] m = members[i];
            if (m != null && m != TOMBSTONE) {
                return i;
            }
        }
        return -1;
    }

    /** Receives the members of one scan step. */
    interface ScanVisitor {
        void visit(byte[] member, double value);
    }

    /**
     * Visits the members whose home bucket is the reverse-binary cursor's bucket, continuing over
     * further buckets until {@code count} were visited; returns the next cursor (0: done).
     */
    long scan(long cursor, int count, ScanVisitor v) {
        long mask = members.length - 1;
        long c = cursor;
        int seen = 0;
        do {
            int home = (int) (c & mask);
            for (int i = home; members[i] != null; i = (int) ((i + 1) & mask)) {
                byte[] m = members[i];
                if (m != TOMBSTONE && (hashes[i] & mask) == home) {
                    v.visit(m, withValues ? values[i] : 0);
                    seen++;
                }
            }
            c |= ~mask;
            c = Long.reverse(c);
            c++;
            c = Long.reverse(c);
        } while (c != 0 && seen < count);
        return c;
    }

    long memoryUsage() {
        return 16 + 16L + members.length * 4L + 16 + members.length * 4L
                + (withValues ? 16 + members.length * 8L : 0) + memberBytes;
    }

    MemberTable copy(boolean shareMembers) {
        MemberTable t = new MemberTable(size, withValues);
        for (int i = 0; i < members.length; i++) {
            byte[] m = members[i];
            if (m != null && m != TOMBSTONE) {
                t.add(shareMembers ? m : m.clone(), withValues ? values[i] : 0);
            }
        }
        return t;
    }
}
