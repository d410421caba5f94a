package dev.spinel.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The keys of one database grouped by hash slot ({@link KeySlot}), for cluster mode's
 * CLUSTER COUNTKEYSINSLOT and GETKEYSINSLOT: both cost what the slot holds, not the keyspace.
 * Kept up to date by {@link SlotIndexedSegment}, the segment kind a keyspace built slot-indexed uses;
 * a keyspace built without it has no index and pays nothing per write.
 *
 * <p>A slot holds its keys' count and their 32-bit {@link KeyHash}es, not the keys: one {@code int[]} per slot that
 * has keys, an open-addressing table (linear probing, at most 3/4 full), 5-11 bytes a key as keys come (up to 32 after
 * most of a slot's keys left, before its table halves) and no object per key (a set of the keys themselves cost ~156
 * bytes a key, three objects each for the collector to trace: 16 MB beside 32 MB of data for 100,000 keys of
 * 256-byte values). The keys are found again through their hashes: a hash
 * picks the segment and the bucket, whose entries of that hash and slot are the keys. Two keys of one slot may share
 * a hash; the table keeps it twice and GETKEYSINSLOT visits it once. A zero hash marks an empty cell, so keys
 * hashing to 0 are only counted (the count minus the table's cells) and looked up when there are any.
 *
 * <p>Thread-safety: each slot's array is guarded by one of {@value #STRIPES} monitors, taken after (inside) the
 * key's segment lock and never while taking another lock (but by {@link #swapWith}, which holds every stripe), so it
 * cannot deadlock; {@link #keys} takes the segment locks one at a time after letting the monitor go.
 */
public final class SlotIndex {
    private static final int STRIPES = 64;
    /** A slot's array: its keys' count, the table's used cells, then the table. */
    private static final int COUNT = 0;
    private static final int USED = 1;
    private static final int HEADER = 2;
    private static final int MIN_CAPACITY = 4;

    private final Database db;
    /** Per slot: null when it has no key, else {count, used, cells...} (cells a power of two). */
    private final int[][] slots = new int[KeySlot.SLOTS][];
    private final Object[] locks = new Object[STRIPES];

    SlotIndex(Database db) {
        this.db = db;
        for (int i = 0; i < STRIPES; i++) {
            locks[i] = new Object();
        }
    }

    private Object lock(int slot) {
        return locks[slot & (STRIPES - 1)];
    }

    /** A key of {@code slot} hashing to {@code hash} was added. */
    void added(int slot, int hash) {
        synchronized (lock(slot)) {
            int[] a = slots[slot];
            if (a == null) {
                a = new int[HEADER + MIN_CAPACITY];
                slots[slot] = a;
            }
            a[COUNT]++;
            if (hash == 0) {
                return;
            }
            int cells = a.length - HEADER;
            if ((a[USED] + 1) * 4 > cells * 3) {
                a = rehashed(a, cells * 2);
                slots[slot] = a;
            }
            put(a, hash);
            a[USED]++;
        }
    }

    /** A key of {@code slot} hashing to {@code hash} was removed. */
    void removed(int slot, int hash) {
        synchronized (lock(slot)) {
            int[] a = slots[slot];
            if (a == null) {
                return;
            }
            if (hash != 0 && delete(a, hash)) {
                a[USED]--;
            }
            if (--a[COUNT] <= 0) {
                slots[slot] = null;
                return;
            }
            int cells = a.length - HEADER;
            if (cells > MIN_CAPACITY && a[USED] * 8 < cells) { // a slot emptied gives its memory back
                slots[slot] = rehashed(a, cells / 2);
            }
        }
    }

    /**
     * Exchanges every slot's keys with {@code other}'s, as their databases exchange their segments' contents
     * ({@link Database#swapWith}, a replica's {@code repl-diskless-load swapdb} in cluster mode); the caller holds
     * every stripe of both databases, so no key is added or removed meanwhile. Each slot's two monitors are taken
     * together, this index's first: a reader takes one monitor and nothing else, so no order can deadlock.
     */
    void swapWith(SlotIndex other) {
        for (int i = 0; i < slots.length; i++) {
            synchronized (lock(i)) {
                synchronized (other.lock(i)) {
                    int[] a = slots[i];
                    slots[i] = other.slots[i];
                    other.slots[i] = a;
                }
            }
        }
    }

    /** The number of keys in {@code slot} (0..16383), including expired ones not yet collected, as Redis. */
    public int count(int slot) {
        synchronized (lock(slot)) {
            int[] a = slots[slot];
            return a == null ? 0 : a[COUNT];
        }
    }

    /** The hashes {@code slot}'s table holds (its keys but those hashing to 0); for tests. */
    int hashed(int slot) {
        synchronized (lock(slot)) {
            int[] a = slots[slot];
            return a == null ? 0 : a[USED];
        }
    }

    /**
     * Up to {@code max} keys of {@code slot}, in no particular order. Each key is read under its segment's lock; a
     * key added or removed while the slot is read may or may not be in the answer (a reshard asks again until the
     * slot is empty).
     */
    public List<byte[]> keys(int slot, int max) {
        int[] hashes;
        boolean zeroHashed;
        synchronized (lock(slot)) {
            int[] a = slots[slot];
            if (a == null || max <= 0) {
                return new ArrayList<>();
            }
            hashes = new int[a[USED]];
            int n = 0;
            for (int i = HEADER; i < a.length; i++) {
                if (a[i] != 0) {
                    hashes[n++] = a[i];
                }
            }
            zeroHashed = a[COUNT] > a[USED];
        }
        Arrays.sort(hashes); // a hash two keys share is visited once
        List<byte[]> out = new ArrayList<>(Math.min(max, hashes.length + (zeroHashed ? 1 : 0)));
        if (zeroHashed) {
            collect(slot, 0, out, max);
        }
        for (int i = 0; i < hashes.length && out.size() < max; i++) {
            if (i == 0 || hashes[i] != hashes[i - 1]) {
                collect(slot, hashes[i], out, max);
            }
        }
        return out;
    }

    private void collect(int slot, int hash, List<byte[]> out, int max) {
        SlotIndexedSegment s = (SlotIndexedSegment) db.segment(hash);
        s.lock();
        try {
            s.keysOf(slot, hash, out, max);
        } finally {
            s.unlock();
        }
    }

    private static int home(int hash, int mask) {
        int h = hash * 0x9E3779B9; // the low bits of a key hash also pick its bucket: mixed, not reused
        return (h ^ (h >>> 16)) & mask;
    }

    private static void put(int[] a, int hash) {
        int mask = a.length - HEADER - 1;
        int i = home(hash, mask);
        while (a[HEADER + i] != 0) {
            i = (i + 1) & mask;
        }
        a[HEADER + i] = hash;
    }

    /** Removes one cell holding {@code hash}, moving later cells of its run back (no tombstones); false if none. */
    private static boolean delete(int[] a, int hash) {
        int mask = a.length - HEADER - 1;
        int i = home(hash, mask);
        while (a[HEADER + i] != hash) {
            if (a[HEADER + i] == 0) {
                return false;
            }
            i = (i + 1) & mask;
        }
        for (int j = (i + 1) & mask; a[HEADER + j] != 0; j = (j + 1) & mask) {
            int k = home(a[HEADER + j], mask);
            // the cell at j may fill the hole at i unless its home lies cyclically in (i, j]
            boolean stays = i <= j ? (k > i && k <= j) : (k > i || k <= j);
            if (!stays) {
                a[HEADER + i] = a[HEADER + j];
                i = j;
            }
        }
        a[HEADER + i] = 0;
        return true;
    }

    private static int[] rehashed(int[] a, int cells) {
        int[] b = new int[HEADER + cells];
        b[COUNT] = a[COUNT];
        b[USED] = a[USED];
        for (int i = HEADER; i < a.length; i++) {
            if (a[i] != 0) {
                put(b, a[i]);
            }
        }
        return b;
    }
}
