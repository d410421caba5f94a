package dev.spinel.store;

/**
 * A segment that reports every key it gains or loses to its database's {@link SlotIndex}. Only a
 * slot-indexed keyspace (cluster mode) creates these: otherwise this class is never loaded, the
 * JIT sees {@link Segment}'s empty hooks as the only implementation and a write costs nothing more.
 *
 * <p>Thread-safety: as {@link Segment}; the hooks run under the segment's lock.
 */
final class SlotIndexedSegment extends Segment {
    private final SlotIndex index;

    SlotIndexedSegment(Database owner, int index, SlotIndex slots) {
        super(owner, index);
        this.index = slots;
    }

    @Override
    void linked(Entry e) {
        index.added(e.key()); // a copy for an inline key: cluster mode only
    }

    @Override
    void unlinked(Entry e) {
        index.removed(e.key());
    }

    @Override
    public void clear() {
        forEach(e -> index.removed(e.key()));
        super.clear();
    }
}
