package dev.spinel.store;

/**
 * The snapshots armed on one {@link Segment} whose copy-on-write copy is incomplete, newest first: per
 * snapshot, a bit per chunk of {@value Segment#CAPTURE_CHUNK_BUCKETS} buckets of the table as it was when
 * armed, cleared once the chunk is passed to the snapshot's {@link SegmentCapture}.
 *
 * <p>Thread-safety: none of its own; guarded by the segment's lock, as the table is.
 */
final class PendingCaptures {
    /** log2 of {@link Segment#CAPTURE_CHUNK_BUCKETS}: one constant, so a change of the chunk size cannot split them. */
    private static final int CHUNK_SHIFT = Integer.numberOfTrailingZeros(Segment.CAPTURE_CHUNK_BUCKETS);

    /** One armed snapshot's chunks not copied yet. */
    private static final class Pending {
        final SegmentCapture capture;
        final long[] todo;
        Pending next;

        Pending(SegmentCapture capture, int chunks, Pending next) {
            this.capture = capture;
            this.todo = new long[(chunks + 63) >>> 6];
            for (int c = 0; c < chunks; c++) {
                todo[c >>> 6] |= 1L << c;
            }
            this.next = next;
        }
    }

    private Pending head;

    boolean isEmpty() {
        return head == null;
    }

    /** A snapshot armed on a table of {@code buckets} buckets: every chunk of it is to be copied. */
    void arm(SegmentCapture capture, int buckets) {
        head = new Pending(capture, chunks(buckets), head);
    }

    /** Copies up to {@code maxChunks} chunks (one per snapshot served); true while more remain. */
    boolean copySome(Segment segment, int buckets, int maxChunks) {
        int done = 0;
        while (head != null) {
            Pending p = head;
            long[] todo = p.todo;
            for (int w = 0; w < todo.length; w++) {
                while (todo[w] != 0) {
                    if (done == maxChunks) {
                        return true;
                    }
                    int c = (w << 6) + Long.numberOfTrailingZeros(todo[w]);
                    todo[w] &= todo[w] - 1;
                    done++;
                    p.capture.capture(segment, c << CHUNK_SHIFT, Math.min(buckets, (c + 1) << CHUNK_SHIFT));
                }
            }
            head = p.next;
        }
        return false;
    }

    /** Copies every chunk still pending for every snapshot. */
    void copyAll(Segment segment, int buckets) {
        while (head != null) {
            Pending p = head;
            head = p.next; // first: a capture never re-enters, but a failure must not loop
            long[] todo = p.todo;
            for (int w = 0; w < todo.length; w++) {
                long bits = todo[w];
                todo[w] = 0;
                while (bits != 0) {
                    int c = (w << 6) + Long.numberOfTrailingZeros(bits);
                    bits &= bits - 1;
                    p.capture.capture(segment, c << CHUNK_SHIFT, Math.min(buckets, (c + 1) << CHUNK_SHIFT));
                }
            }
        }
    }

    /** Copies, for every snapshot that still needs it, the chunk holding {@code bucket}. */
    void copyBucket(Segment segment, int buckets, int bucket) {
        int c = bucket >>> CHUNK_SHIFT;
        long bit = 1L << c;
        Pending prev = null;
        for (Pending p = head; p != null; p = p.next) {
            long[] todo = p.todo;
            if ((todo[c >>> 6] & bit) != 0) {
                todo[c >>> 6] &= ~bit;
                p.capture.capture(segment, c << CHUNK_SHIFT, Math.min(buckets, (c + 1) << CHUNK_SHIFT));
                if (allClear(todo)) {
                    if (prev == null) {
                        head = p.next;
                    } else {
                        prev.next = p.next;
                    }
                    continue; // prev stays
                }
            }
            prev = p;
        }
    }

    private static boolean allClear(long[] todo) {
        for (long w : todo) {
            if (w != 0) {
                return false;
            }
        }
        return true;
    }

    private static int chunks(int buckets) {
        return (buckets + Segment.CAPTURE_CHUNK_BUCKETS - 1) >>> CHUNK_SHIFT;
    }
}
