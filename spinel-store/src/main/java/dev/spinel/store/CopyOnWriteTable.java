package dev.spinel.store;

/**
 * The bucket array of a {@link Segment} and the copy-on-write of the snapshots armed on it: snapshots without
 * fork ({@link SegmentCapture}). A snapshot armed on the segment is copied chunk by chunk
 * ({@value Segment#CAPTURE_CHUNK_BUCKETS} buckets, ~that many keys) on first touch. Every path that hands
 * out an entry or changes a chain first captures the chunk of the bucket concerned ({@link Segment#find},
 * {@link Segment#insert}, {@link Segment#removeEntry}, {@link Segment#scan}, {@link Segment#randomEntry}, active
 * expiry); paths that see every bucket ({@link #forEach}, resize, clear, SWAPDB) first capture everything still
 * pending. So a writer pays for the ~64 keys next to the key it writes, not for the whole segment (measured in
 * docs/performance.md, "BGSAVE tail latency").
 *
 * <p>Thread-safety: as {@link Segment}, whose lock guards every field and method here.
 */
abstract class CopyOnWriteTable {
    /** The buckets; null until the first key. Package-private for {@link Segment} and {@link SegmentWalks}. */
    Entry[] table;
    /** Snapshots armed here whose copy is incomplete; null almost always (the hot paths' one check). Guarded by the lock. */
    PendingCaptures pending;

    /** Keys in the table. */
    public abstract int size();

    /**
     * Arms a snapshot's copy-on-write: from now on each chunk of buckets is passed to
     * {@code capture} before anything reads or changes it, by whichever thread touches it first under
     * this lock, and {@link #capturePending()} copies what is left. The caller holds this segment's lock,
     * and for a point-in-time snapshot every other segment's too. Several snapshots may be armed at once;
     * each receives every chunk exactly once.
     */
    public void armCapture(SegmentCapture capture) {
        if (table == null || size() == 0) {
            return; // nothing to copy
        }
        if (pending == null) {
            pending = new PendingCaptures();
        }
        pending.arm(capture, table.length);
    }

    /**
     * Copies up to {@code maxChunks} pending chunks (counting one per snapshot served) and returns true
     * while more remain: lets a snapshot's own thread copy what writers have not touched a few chunks
     * per lock hold, so writers never wait behind a whole segment's copy. The caller holds the lock.
     */
    public boolean capturePending(int maxChunks) {
        if (pending == null) {
            return false;
        }
        boolean more = pending.copySome((Segment) this, table.length, maxChunks);
        if (pending.isEmpty()) {
            pending = null;
        }
        return more;
    }

    /** Copies every chunk still pending for every armed snapshot; the caller holds the lock. */
    public void capturePending() {
        if (pending != null) {
            pending.copyAll((Segment) this, table.length);
            pending = null;
        }
    }

    /** Before a walk hands out or changes the entries of {@code bucket}: its chunk is copied for any armed snapshot. */
    void touchBucket(int bucket) {
        if (pending != null) {
            captureBucket(bucket);
        }
    }

    final void captureBucket(int bucket) {
        pending.copyBucket((Segment) this, table.length, bucket);
        if (pending.isEmpty()) {
            pending = null;
        }
    }

    /** True while some armed snapshot still has chunks of this segment to copy (tests). */
    public boolean hasPendingCapture() {
        return pending != null;
    }

    /**
     * Visits the entries of buckets {@code [from, to)} as they are, without copy-on-write: only for a
     * {@link SegmentCapture} copying its chunk. The caller holds the lock.
     */
    public void forEachInBuckets(int from, int to, Segment.EntryVisitor visitor) {
        Entry[] t = table;
        for (int b = from; b < to; b++) {
            for (Entry e = t[b]; e != null; e = e.next) {
                visitor.visit(e);
            }
        }
    }

    /** Visits every entry (KEYS, FLUSH bookkeeping, snapshots). */
    public void forEach(Segment.EntryVisitor visitor) {
        capturePending();
        Entry[] t = table;
        if (t == null) {
            return;
        }
        for (Entry head : t) {
            for (Entry e = head; e != null; e = e.next) {
                visitor.visit(e);
            }
        }
    }
}
