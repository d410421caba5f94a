package dev.spinel.store;

import java.util.List;

/**
 * A segment that reports every key it gains or loses to its database's {@link SlotIndex}, and finds a slot's keys of
 * one hash again for it. Only a slot-indexed keyspace (cluster mode) creates these: otherwise this class is never
 * loaded, the JIT sees {@link Segment}'s empty hooks as the only implementation and a write costs nothing more.
 *
 * <p>Thread-safety: as {@link Segment}; the hooks and {@link #keysOf} run under the segment's lock, which also
 * guards the scratch array an inline key's bytes are written to for its slot.
 */
final class SlotIndexedSegment extends Segment {
    private final SlotIndex index;
    private final byte[] scratch = new byte[Entry.MAX_INLINE_KEY];

    SlotIndexedSegment(Database owner, int index, SlotIndex slots) {
        super(owner, index);
        this.index = slots;
    }

    @Override
    void linked(Entry e, int hash) {
        index.added(slotOf(e), hash);
    }

    @Override
    void unlinked(Entry e, int hash) {
        index.removed(slotOf(e), hash);
    }

    @Override
    public void clear() {
        forEach(e -> index.removed(slotOf(e), e.keyHash()));
        super.clear();
    }

    /** Adds to {@code out}, up to {@code max} in all, the keys of {@code slot} whose hash is {@code hash}. */
    void keysOf(int slot, int hash, List<byte[]> out, int max) {
        Entry[] t = table;
        if (t == null) {
            return;
        }
        int b = hash & (t.length - 1);
        touchBucket(b);
        for (Entry e = t[b]; e != null && out.size() < max; e = e.next) {
            if (e.keyHash() == hash && slotOf(e) == slot) {
                out.add(e.key());
            }
        }
    }

    /** The key's slot, without a copy of an inline key. */
    private int slotOf(Entry e) {
        return KeySlot.of(e.keyBytes(scratch), 0, e.keyLength());
    }
}
