package dev.spinel.store.types;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Redis's intset: sorted distinct integers packed in one {@code byte[]} at the narrowest width that
 * holds them all (2, 4 or 8 bytes, little-endian, exactly the layout Redis writes in RDB files),
 * widened when a larger value arrives and never narrowed. Binary search for lookups.
 *
 * <p>Not thread-safe: guarded by the lock of the segment holding the key.
 */
final class IntSet {
    private static final VarHandle I16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] data;
    private int width = 2;
    private int count;

    IntSet(int capacity) {
        data = new byte[Math.max(4, capacity) * width];
    }

    private IntSet(byte[] data, int width, int count) {
        this.data = data;
        this.width = width;
        this.count = count;
    }

    int size() {
        return count;
    }

    /** Bytes per element: 2, 4 or 8 (Redis's INTSET_ENC_INT16/32/64). */
    int width() {
        return width;
    }

    long get(int i) {
        int o = i * width;
        return switch (width) {
            case 2 -> (short) I16.get(data, o);
            case 4 -> (int) I32.get(data, o);
            default -> (long) I64.get(data, o);
        };
    }

    private void set(int i, long v) {
        int o = i * width;
        switch (width) {
            case 2 -> I16.set(data, o, (short) v);
            case 4 -> I32.set(data, o, (int) v);
            default -> I64.set(data, o, v);
        }
    }

    private static int widthFor(long v) {
        if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) {
            return 2;
        }
        return v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE ? 4 : 8;
    }

    /** Index of {@code v}, or {@code -(insertion point) - 1}. */
    int search(long v) {
        int lo = 0;
        int hi = count - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long m = get(mid);
            if (m < v) {
                lo = mid + 1;
            } else if (m > v) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -(lo + 1);
    }

    boolean contains(long v) {
        return widthFor(v) <= width && search(v) >= 0;
    }

    /** Adds {@code v}; false if present. */
    boolean add(long v) {
        int w = widthFor(v);
        if (w > width) {
            widen(w, count + 1);
        }
        int pos = search(v);
        if (pos >= 0) {
            return false;
        }
        pos = -pos - 1;
        if ((count + 1) * width > data.length) {
            data = Arrays.copyOf(data, Math.max(data.length * 2, (count + 1) * width));
        }
        System.arraycopy(data, pos * width, data, (pos + 1) * width, (count - pos) * width);
        count++;
        set(pos, v);
        return true;
    }

    private void widen(int w, int capacity) {
        byte[] old = data;
        int oldWidth = width;
        IntSet src = new IntSet(old, oldWidth, count);
        data = new byte[Math.max(4, capacity) * w];
        width = w;
        for (int i = 0; i < count; i++) {
            set(i, src.get(i));
        }
    }

    void removeAt(int i) {
        System.arraycopy(data, (i + 1) * width, data, i * width, (count - i - 1) * width);
        count--;
    }

    boolean remove(long v) {
        if (widthFor(v) > width) {
            return false;
        }
        int pos = search(v);
        if (pos < 0) {
            return false;
        }
        removeAt(pos);
        return true;
    }

    long memoryUsage() {
        return 24 + ((12 + data.length + 7) & ~7L);
    }

    IntSet copy() {
        return new IntSet(Arrays.copyOf(data, Math.max(count, 4) * width), width, count);
    }
}
