package dev.spinel.store.types;

import dev.spinel.store.TypedValue;
import dev.spinel.store.ValueType;

import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * A Redis set in one of Redis 7.0's two encodings:
 * <ul>
 * <li>{@code intset}: while every member is a 64-bit integer in canonical form and the count is at most
 * {@code set-max-intset-entries}: an {@link IntSet}, sorted integers packed at 2, 4 or 8 bytes each
 * (iterated in ascending order, as Redis does);
 * <li>{@code hashtable}: otherwise, a {@link MemberTable} of byte strings. A set never converts back.
 * </ul>
 * Members are passed as slices of a caller's buffer and copied only when stored.
 *
 * <p>Not thread-safe: guarded by the lock of the segment holding the key.
 */
public final class SetValue implements TypedValue {
    private IntSet ints; // intset form; null in hashtable form
    private MemberTable table; // hashtable form

    private SetValue() {
    }

    /** An empty set in the encoding Redis picks for its first member ({@code setTypeCreate}). */
    public static SetValue createFor(byte[] b, int off, int len) {
        SetValue s = new SetValue();
        if (isInt(b, off, len)) {
            s.ints = new IntSet(4);
        } else {
            s.table = new MemberTable(4, false);
        }
        return s;
    }

    /** An empty set in the intset encoding (the destination of SINTERSTORE/SUNIONSTORE/SDIFFSTORE). */
    public static SetValue createIntset() {
        SetValue s = new SetValue();
        s.ints = new IntSet(4);
        return s;
    }

    private static boolean isInt(byte[] b, int off, int len) {
        return CanonicalInts.isCanonical(b, off, len);
    }

    @Override
    public ValueType type() {
        return ValueType.SET;
    }

    @Override
    public String encoding() {
        return ints != null ? "intset" : "hashtable";
    }

    public boolean isIntset() {
        return ints != null;
    }

    @Override
    public long size() {
        return ints != null ? ints.size() : table.size();
    }

    @Override
    public long memoryUsage() {
        if (ints != null) {
            return 16 + ints.memoryUsage();
        }
        return 16 + table.memoryUsage();
    }

    @Override
    public SetValue copy() {
        SetValue s = new SetValue();
        if (ints != null) {
            s.ints = ints.copy();
        } else {
            s.table = table.copy(false);
        }
        return s;
    }

    // ---------------------------------------------------------------- membership

    public boolean contains(byte[] b, int off, int len) {
        if (ints != null) {
            long v;
            try {
                v = CanonicalInts.parse(b, off, len);
            } catch (NumberFormatException e) {
                return false;
            }
            return ints.contains(v);
        }
        return table.contains(b, off, len);
    }

    public boolean contains(byte[] m) {
        return contains(m, 0, m.length);
    }

    /** Adds a member (copied if stored); converts as Redis's {@code setTypeAdd}. Returns true if new. */
    public boolean add(byte[] b, int off, int len, SetLimits limits) {
        if (ints != null) {
            long v;
            try {
                v = CanonicalInts.parse(b, off, len);
            } catch (NumberFormatException e) {
                convertToTable(ints.size() + 1);
                return table.add(Arrays.copyOfRange(b, off, off + len), 0);
            }
            if (!ints.add(v)) {
                return false;
            }
            if (ints.size() > limits.setMaxIntsetEntries()) {
                convertToTable(ints.size());
            }
            return true;
        }
        return table.add(Arrays.copyOfRange(b, off, off + len), 0);
    }

    public boolean add(byte[] m, SetLimits limits) {
        return add(m, 0, m.length, limits);
    }

    public boolean remove(byte[] b, int off, int len) {
        if (ints != null) {
            long v;
            try {
                v = CanonicalInts.parse(b, off, len);
            } catch (NumberFormatException e) {
                return false;
            }
            return ints.remove(v);
        }
        return table.remove(b, off, len);
    }

    public boolean remove(byte[] m) {
        return remove(m, 0, m.length);
    }

    private void convertToTable(int expected) {
        MemberTable t = new MemberTable(expected, false);
        for (int i = 0; i < ints.size(); i++) {
            t.add(CanonicalInts.toBytes(ints.get(i)), 0);
        }
        table = t;
        ints = null;
    }

    // ---------------------------------------------------------------- iteration and randomness

    /**
     * A position-based iterator: {@code for (int p = first(); p >= 0; p = next(p)) member(p)}. Positions
     * stay valid while the set is not modified.
     */
    public int first() {
        return ints != null ? (ints.size() > 0 ? 0 : -1) : table.nextSlot(0);
    }

    public int next(int pos) {
        return ints != null ? (pos + 1 < ints.size() ? pos + 1 : -1) : table.nextSlot(pos + 1);
    }

    /** The member at an iterator position, as bytes (allocated for intset members). */
    public byte[] member(int pos) {
        return ints != null ? CanonicalInts.toBytes(ints.get(pos)) : table.memberAt(pos);
    }

    /** The integer at an iterator position in the intset encoding (avoids formatting). */
    public long intAt(int pos) {
        return ints.get(pos);
    }

    /** A random position (the set must not be empty). */
    public int randomPosition(RandomGenerator rnd) {
        return ints != null ? rnd.nextInt(ints.size()) : table.randomSlot(rnd);
    }

    /** Removes the member at an iterator position (the set's positions are then invalid). */
    public void removeAt(int pos) {
        if (ints != null) {
            ints.removeAt(pos);
        } else {
            table.removeSlot(pos);
        }
    }

    /** Receives SSCAN members. */
    public interface Visitor {
        void visit(byte[] member);
    }

    /**
     * One SSCAN step. The intset encoding returns everything at once (cursor 0), as Redis does for
     * compact encodings; the hash table walks Redis's reverse-binary cursor.
     */
    public long scan(long cursor, int count, Visitor v) {
        if (ints != null) {
            for (int i = 0; i < ints.size(); i++) {
                v.visit(CanonicalInts.toBytes(ints.get(i)));
            }
            return 0;
        }
        return table.scan(cursor, count, (m, ignored) -> v.visit(m));
    }
}
