package dev.spinel.store;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The keys of one database grouped by hash slot ({@link KeySlot}), for cluster mode's
 * CLUSTER COUNTKEYSINSLOT and GETKEYSINSLOT: both cost what the slot holds, not the keyspace.
 * Kept up to date by {@link SlotIndexedSegment}, the segment kind a keyspace built slot-indexed uses;
 * a keyspace built without it has no index and pays nothing per write.
 *
 * <p>Thread-safety: each slot's set is guarded by its own monitor, taken after (inside) the key's
 * segment lock and never while taking another lock (but by {@link #swapWith}, which holds every stripe), so it
 * cannot deadlock.
 */
public final class SlotIndex {
    private final SlotKeys[] slots = new SlotKeys[KeySlot.SLOTS];

    /** One slot's keys, in insertion order; the set is replaced only by {@link #swapWith}, under this monitor. */
    private static final class SlotKeys {
        LinkedHashSet<ByteKey> keys = new LinkedHashSet<>();
    }

    SlotIndex() {
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new SlotKeys();
        }
    }

    void added(byte[] key) {
        SlotKeys s = slots[KeySlot.of(key)];
        synchronized (s) {
            s.keys.add(new ByteKey(key));
        }
    }

    void removed(byte[] key) {
        SlotKeys s = slots[KeySlot.of(key)];
        synchronized (s) {
            s.keys.remove(new ByteKey(key));
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
            SlotKeys mine = slots[i];
            SlotKeys theirs = other.slots[i];
            synchronized (mine) {
                synchronized (theirs) {
                    LinkedHashSet<ByteKey> k = mine.keys;
                    mine.keys = theirs.keys;
                    theirs.keys = k;
                }
            }
        }
    }

    /** The number of keys in {@code slot} (0..16383), including expired ones not yet collected, as Redis. */
    public int count(int slot) {
        SlotKeys s = slots[slot];
        synchronized (s) {
            return s.keys.size();
        }
    }

    /** Up to {@code max} keys of {@code slot}. */
    public List<byte[]> keys(int slot, int max) {
        SlotKeys s = slots[slot];
        synchronized (s) {
            List<byte[]> out = new ArrayList<>(Math.min(max, s.keys.size()));
            for (ByteKey k : s.keys) {
                if (out.size() >= max) {
                    break;
                }
                out.add(k.bytes());
            }
            return out;
        }
    }
}
