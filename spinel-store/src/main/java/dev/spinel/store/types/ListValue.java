package dev.spinel.store.types;

import dev.spinel.store.TypedValue;
import dev.spinel.store.ValueType;

import java.util.Arrays;

/**
 * A Redis list. Two layouts, chosen like Redis's quicklist node limit ({@code list-max-listpack-size}):
 * <ul>
 *   <li>compact: every element as {@code [varint length][bytes]} packed in one {@code byte[]} (no object
 *       per element); used while the packed bytes stay within the node limit (8 KiB for the default -2)
 *       or, for a positive setting, while the element count stays within it;</li>
 *   <li>large: a ring-buffer deque of {@code byte[]}, O(1) at both ends.</li>
 * </ul>
 * Once large, a list stays large (Redis 7.0 never converts back). Redis 7.0 reports the encoding
 * {@code quicklist} for every list, whatever its size, so {@link #encoding()} does too;
 * {@link #compact()} tells the layout for tests.
 *
 * <p>Indexes given to the methods are already normalized and in range; commands check them.
 *
 * <p>Not thread-safe: guarded by the lock of the segment holding the key.
 */
public final class ListValue implements TypedValue {
    private final CollectionSettings settings;
    // compact layout
    private byte[] lp;
    private int used;
    // large layout
    private byte[][] ring;
    private int head;
    private int count;
    /** Heap bytes of the element arrays in the large layout, kept current so memoryUsage() is O(1). */
    private long elemHeap;

    public ListValue(CollectionSettings settings) {
        this.settings = settings;
        this.lp = new byte[16];
    }

    private ListValue(ListValue o) {
        this.settings = o.settings;
        this.count = o.count;
        if (o.lp != null) {
            this.lp = Arrays.copyOf(o.lp, Math.max(16, o.used));
            this.used = o.used;
        } else {
            this.ring = new byte[Math.max(16, Integer.highestOneBit(Math.max(1, o.count)) * 2)][];
            for (int i = 0; i < o.count; i++) {
                ring[i] = o.ringGet(i).clone();
            }
            this.elemHeap = o.elemHeap;
        }
    }

    @Override
    public ValueType type() {
        return ValueType.LIST;
    }

    @Override
    public String encoding() {
        return "quicklist";
    }

    /** True while the list uses the packed single-array layout. */
    public boolean compact() {
        return lp != null;
    }

    @Override
    public long memoryUsage() {
        if (lp != null) {
            return 32 + 16 + lp.length;
        }
        return 32 + 16 + 4L * ring.length + elemHeap;
    }

    @Override
    public ListValue copy() {
        return new ListValue(this);
    }

    @Override
    public long size() {
        return count;
    }

    public int length() {
        return count;
    }

    // ------------------------------------------------------------ ends

    public void push(boolean head, byte[] buf, int off, int len) {
        if (lp != null) {
            insertCompact(head ? 0 : used, buf, off, len);
            count++;
            maybeConvert();
        } else {
            growRing();
            if (head) {
                this.head = (this.head - 1) & (ring.length - 1);
                ring[this.head] = Arrays.copyOfRange(buf, off, off + len);
            } else {
                ring[(this.head + count) & (ring.length - 1)] = Arrays.copyOfRange(buf, off, off + len);
            }
            elemHeap += cost(len);
            count++;
        }
    }

    public void push(boolean head, byte[] value) {
        push(head, value, 0, value.length);
    }

    /** Removes and returns the first or last element; the list must not be empty. */
    public byte[] pop(boolean head) {
        return removeAt(head ? 0 : count - 1);
    }

    // ------------------------------------------------------------ random access

    public byte[] get(int index) {
        if (lp != null) {
            int p = offsetOf(index);
            int len = Varint.read(lp, p);
            int start = p + Varint.len(lp, p);
            return Arrays.copyOfRange(lp, start, start + len);
        }
        return ringGet(index);
    }

    public void set(int index, byte[] buf, int off, int len) {
        if (lp != null) {
            int p = offsetOf(index);
            deleteCompact(p);
            insertCompact(p, buf, off, len);
            maybeConvert();
        } else {
            int slot = (head + index) & (ring.length - 1);
            elemHeap += cost(len) - cost(ring[slot].length);
            ring[slot] = Arrays.copyOfRange(buf, off, off + len);
        }
    }

    /** Inserts so that the new element gets position {@code index} (0..length). */
    public void insert(int index, byte[] buf, int off, int len) {
        if (lp != null) {
            insertCompact(index == count ? used : offsetOf(index), buf, off, len);
            count++;
            maybeConvert();
            return;
        }
        growRing();
        byte[] v = Arrays.copyOfRange(buf, off, off + len);
        int mask = ring.length - 1;
        if (index < count / 2) {
            head = (head - 1) & mask;
            for (int i = 0; i < index; i++) {
                ring[(head + i) & mask] = ring[(head + i + 1) & mask];
            }
        } else {
            for (int i = count; i > index; i--) {
                ring[(head + i) & mask] = ring[(head + i - 1) & mask];
            }
        }
        ring[(head + index) & mask] = v;
        elemHeap += cost(len);
        count++;
    }

    /** Removes the element at {@code index} and returns it. */
    public byte[] removeAt(int index) {
        if (lp != null) {
            int p = offsetOf(index);
            int len = Varint.read(lp, p);
            int start = p + Varint.len(lp, p);
            byte[] v = Arrays.copyOfRange(lp, start, start + len);
            deleteCompact(p);
            count--;
            return v;
        }
        int mask = ring.length - 1;
        byte[] v = ring[(head + index) & mask];
        elemHeap -= cost(v.length);
        if (index < count / 2) {
            for (int i = index; i > 0; i--) {
                ring[(head + i) & mask] = ring[(head + i - 1) & mask];
            }
            ring[head] = null;
            head = (head + 1) & mask;
        } else {
            for (int i = index; i < count - 1; i++) {
                ring[(head + i) & mask] = ring[(head + i + 1) & mask];
            }
            ring[(head + count - 1) & mask] = null;
        }
        count--;
        return v;
    }

    /** Keeps only positions {@code start..end} (inclusive); an empty range empties the list. */
    public void trim(int start, int end) {
        if (start > end || start >= count) {
            clear();
            return;
        }
        end = Math.min(end, count - 1);
        if (lp != null) {
            int from = offsetOf(start);
            int to = offsetOf(end);
            to += Varint.len(lp, to) + Varint.read(lp, to);
            System.arraycopy(lp, from, lp, 0, to - from);
            used = to - from;
            count = end - start + 1;
            return;
        }
        int n = end - start + 1;
        byte[][] r = new byte[Math.max(16, Integer.highestOneBit(n) * 2)][];
        elemHeap = 0;
        for (int i = 0; i < n; i++) {
            r[i] = ringGet(start + i);
            elemHeap += cost(r[i].length);
        }
        ring = r;
        head = 0;
        count = n;
    }

    private void clear() {
        count = 0;
        if (lp != null) {
            used = 0;
        } else {
            ring = new byte[16][];
            head = 0;
            elemHeap = 0;
        }
    }

    /**
     * Removes up to {@code limit} elements equal to the value (0 = all), scanning from the head, or
     * from the tail when {@code fromTail}; returns how many were removed (LREM).
     */
    public long removeMatching(byte[] buf, int off, int len, long limit, boolean fromTail) {
        // One pass that keeps every element except the chosen matches: from the tail, the chosen ones
        // are the last `limit` matches, so the first (total - limit) matches are kept.
        long keepFirst = 0;
        if (fromTail && limit != 0) {
            keepFirst = Math.max(0, countMatches(buf, off, len) - limit);
        }
        long seen = 0;
        long removed = 0;
        if (lp != null) {
            int r = 0;
            int w = 0;
            int n = count;
            for (int i = 0; i < n; i++) {
                int l = Varint.read(lp, r);
                int size = Varint.len(lp, r) + l;
                int s = r + size - l;
                boolean drop = false;
                if (l == len && Arrays.equals(lp, s, s + l, buf, off, off + len)) {
                    seen++;
                    drop = fromTail ? (limit == 0 || seen > keepFirst) : (limit == 0 || removed < limit);
                }
                if (drop) {
                    removed++;
                } else {
                    if (w != r) {
                        System.arraycopy(lp, r, lp, w, size);
                    }
                    w += size;
                }
                r += size;
            }
            used = w;
            count -= (int) removed;
            return removed;
        }
        byte[][] kept = new byte[ring.length][];
        int k = 0;
        for (int i = 0; i < count; i++) {
            byte[] v = ringGet(i);
            boolean drop = false;
            if (v.length == len && Arrays.equals(v, 0, len, buf, off, off + len)) {
                seen++;
                drop = fromTail ? (limit == 0 || seen > keepFirst) : (limit == 0 || removed < limit);
            }
            if (drop) {
                removed++;
                elemHeap -= cost(v.length);
            } else {
                kept[k++] = v;
            }
        }
        ring = kept;
        head = 0;
        count = k;
        return removed;
    }

    private long countMatches(byte[] buf, int off, int len) {
        long total = 0;
        if (lp != null) {
            int p = 0;
            for (int i = 0; i < count; i++) {
                int l = Varint.read(lp, p);
                int st = p + Varint.len(lp, p);
                if (l == len && Arrays.equals(lp, st, st + l, buf, off, off + len)) {
                    total++;
                }
                p = st + l;
            }
            return total;
        }
        for (int i = 0; i < count; i++) {
            if (equalsAt(i, buf, off, len)) {
                total++;
            }
        }
        return total;
    }

    /** Position of the first element equal to the slice, or -1 (one pass over the list). */
    public int indexOf(byte[] buf, int off, int len) {
        if (lp != null) {
            int p = 0;
            for (int i = 0; i < count; i++) {
                int l = Varint.read(lp, p);
                int s = p + Varint.len(lp, p);
                if (l == len && Arrays.equals(lp, s, s + l, buf, off, off + len)) {
                    return i;
                }
                p = s + l;
            }
            return -1;
        }
        for (int i = 0; i < count; i++) {
            byte[] v = ringGet(i);
            if (v.length == len && Arrays.equals(v, 0, len, buf, off, off + len)) {
                return i;
            }
        }
        return -1;
    }

    /** Whether the element at {@code index} equals the slice. */
    public boolean equalsAt(int index, byte[] buf, int off, int len) {
        if (lp != null) {
            int p = offsetOf(index);
            int l = Varint.read(lp, p);
            int s = p + Varint.len(lp, p);
            return l == len && Arrays.equals(lp, s, s + l, buf, off, off + len);
        }
        byte[] v = ringGet(index);
        return v.length == len && Arrays.equals(v, 0, len, buf, off, off + len);
    }

    /**
     * Visits positions {@code from..to} (inclusive, in range) in order, or backwards from {@code to}
     * to {@code from} when {@code reverse}, until the visitor returns false.
     */
    public void forEach(int from, int to, boolean reverse, ElementVisitor v) {
        if (from > to) {
            return;
        }
        if (lp != null) {
            if (!reverse) {
                int p = offsetOf(from);
                for (int i = from; i <= to; i++) {
                    int l = Varint.read(lp, p);
                    int s = p + Varint.len(lp, p);
                    if (!v.visit(lp, s, l)) {
                        return;
                    }
                    p = s + l;
                }
            } else {
                int[] offs = new int[to - from + 1];
                int p = offsetOf(from);
                for (int i = 0; i < offs.length; i++) {
                    offs[i] = p;
                    p += Varint.len(lp, p) + Varint.read(lp, p);
                }
                for (int i = offs.length - 1; i >= 0; i--) {
                    int q = offs[i];
                    if (!v.visit(lp, q + Varint.len(lp, q), Varint.read(lp, q))) {
                        return;
                    }
                }
            }
            return;
        }
        if (!reverse) {
            for (int i = from; i <= to; i++) {
                byte[] e = ringGet(i);
                if (!v.visit(e, 0, e.length)) {
                    return;
                }
            }
        } else {
            for (int i = to; i >= from; i--) {
                byte[] e = ringGet(i);
                if (!v.visit(e, 0, e.length)) {
                    return;
                }
            }
        }
    }

    // ------------------------------------------------------------ compact internals

    private int offsetOf(int index) {
        int p = 0;
        for (int i = 0; i < index; i++) {
            p += Varint.len(lp, p) + Varint.read(lp, p);
        }
        return p;
    }

    private void insertCompact(int pos, byte[] buf, int off, int len) {
        int need = Varint.size(len) + len;
        if (used + need > lp.length) {
            lp = Arrays.copyOf(lp, Math.max(used + need, lp.length + (lp.length >> 1)));
        }
        System.arraycopy(lp, pos, lp, pos + need, used - pos);
        int p = Varint.write(lp, pos, len);
        System.arraycopy(buf, off, lp, p, len);
        used += need;
    }

    private void deleteCompact(int pos) {
        int n = Varint.len(lp, pos) + Varint.read(lp, pos);
        System.arraycopy(lp, pos + n, lp, pos, used - pos - n);
        used -= n;
        if (lp.length > 64 && used < lp.length / 4) {
            lp = Arrays.copyOf(lp, Math.max(16, used * 2));
        }
    }

    private void maybeConvert() {
        long fill = settings.listMaxListpackSize();
        boolean over = fill > 0 ? count > fill : used > CollectionSettings.listpackBytesLimit(fill);
        if (!over) {
            return;
        }
        byte[][] r = new byte[Math.max(16, Integer.highestOneBit(count) * 2)][];
        int p = 0;
        for (int i = 0; i < count; i++) {
            int l = Varint.read(lp, p);
            int s = p + Varint.len(lp, p);
            r[i] = Arrays.copyOfRange(lp, s, s + l);
            elemHeap += cost(l);
            p = s + l;
        }
        ring = r;
        head = 0;
        lp = null;
        used = 0;
    }

    // ------------------------------------------------------------ large internals

    private static long cost(int len) {
        return (12 + len + 7) & ~7L;
    }

    private byte[] ringGet(int index) {
        return ring[(head + index) & (ring.length - 1)];
    }

    private void growRing() {
        if (count < ring.length) {
            return;
        }
        byte[][] r = new byte[ring.length * 2][];
        for (int i = 0; i < count; i++) {
            r[i] = ringGet(i);
        }
        ring = r;
        head = 0;
    }
}
