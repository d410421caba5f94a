package dev.spinel.store;

/**
 * Work that must see a segment's entries before anything touches them again: the copy-on-write step of
 * a snapshot taken without fork. A snapshot arms every segment while holding every stripe (a moment, not
 * a copy: a bit per chunk of {@value Segment#CAPTURE_CHUNK_BUCKETS} buckets); afterwards, whichever
 * thread next reaches a chunk under the segment's lock (a writer about to read or change a key in it,
 * or the snapshot's own writer thread calling {@link Segment#capturePending()}) first runs
 * {@link #capture} on that chunk, so each chunk is copied exactly once, in the state it had when the
 * snapshot was armed.
 *
 * <p>Thread-safety: {@link #capture} runs on any thread that holds the segment's lock, so it must be
 * quick, must not lock anything, must not call back into the segment except
 * {@link Segment#forEachInBuckets} and its getters, and must not throw.
 */
@FunctionalInterface
public interface SegmentCapture {
    /** Copies what the snapshot needs of buckets {@code [fromBucket, toBucket)} of {@code segment}. */
    void capture(Segment segment, int fromBucket, int toBucket);
}
