package dev.spinel.store;

import java.util.Arrays;

/**
 * Locks the stripes of several keys, possibly in several databases, in one global order
 * (database index, then segment index) so that concurrent multi-key commands cannot deadlock.
 * Reusable: one instance per connection, no allocation after warm-up.
 *
 * <p>Not thread-safe: owned by one connection.
 */
public final class StripeLocks {
    private Segment[] segments = new Segment[8];
    private int count;
    private boolean locked;

    /** Adds the stripe of a key; duplicates are fine. */
    public StripeLocks add(Segment s) {
        if (locked) {
            throw new IllegalStateException("already locked");
        }
        for (int i = 0; i < count; i++) {
            if (segments[i] == s) {
                return this;
            }
        }
        if (count == segments.length) {
            segments = Arrays.copyOf(segments, count * 2);
        }
        segments[count++] = s;
        return this;
    }

    public StripeLocks add(Database db, byte[] buf, int off, int len) {
        return add(db.segment(KeyHash.hash(buf, off, len)));
    }

    public void lock() {
        Arrays.sort(segments, 0, count, (a, b) -> {
            int c = Integer.compare(a.database().index(), b.database().index());
            return c != 0 ? c : Integer.compare(a.index, b.index);
        });
        for (int i = 0; i < count; i++) {
            segments[i].lock();
        }
        locked = true;
    }

    /** Unlocks everything and forgets the stripes. */
    public void unlock() {
        if (locked) {
            for (int i = count - 1; i >= 0; i--) {
                segments[i].unlock();
            }
        }
        Arrays.fill(segments, 0, count, null);
        count = 0;
        locked = false;
    }
}
