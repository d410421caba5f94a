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
 * segment lock and never while taking another lock, so it cannot deadlock.
 */
public final class SlotIndex {
    private final SlotKeys[] slots = new SlotKeys[KeySlot.SLOTS];

    /** One slot's keys, in insertion order. */
    private static final class SlotKeys {
        final LinkedHashSet<ByteKey> keys = new LinkedHashSet<>();
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
