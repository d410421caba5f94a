package dev.spinel.store;

/**
 * Work that must see a segment before anything else touches it again: the copy-on-write step of a
 * snapshot taken without fork. A snapshot arms every segment while holding every stripe (a moment, not
 * a copy); afterwards, whichever thread next locks an armed segment, a writer or the snapshot's own
 * writer thread, first runs {@link #capture} with the lock held, so each segment is copied in exactly
 * the state it had when the snapshot was armed.
 *
 * <p>Thread-safety: {@link #capture} runs on any thread that locks the segment, under that segment's
 * lock, so it must be quick, must not lock other segments and must not throw.
 */
@FunctionalInterface
public interface SegmentCapture {
    /** Copies what the snapshot needs of {@code segment}; the caller holds its lock. */
    void capture(Segment segment);
}
