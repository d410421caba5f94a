package dev.spinel.store.types.stream;

import java.util.Arrays;

import dev.spinel.store.types.ElementVisitor;
import dev.spinel.store.types.ListpackElements;

/**
 * Walks the entries of a {@link StreamValue} with IDs in [start, end], forward or in reverse, as
 * Redis's streamIterator: deleted entries are skipped (unless the cursor was made to include them).
 * Entering a node records where each of its entries starts, so reverse walks need no back-lengths.
 *
 * <p>Not thread-safe; valid while the caller holds the stream's segment lock and until the stream is
 * changed other than through this cursor.
 */
public final class StreamCursor {
    private final StreamValue s;
    private final long startMs;
    private final long startSeq;
    private final long endMs;
    private final long endSeq;
    private final boolean rev;
    private final boolean withDeleted;

    private int node = -1;
    private int[] starts = new int[16];
    private int entries;
    private int k;
    private int masterFieldsPos;
    private int masterFieldCount;
    private boolean done;

    private long ms;
    private long seq;
    private int flags;
    private int flagsPos;
    private int fieldsPos;
    private int fieldCount;

    StreamCursor(StreamValue s, long startMs, long startSeq, long endMs, long endSeq, boolean rev, boolean withDeleted) {
        this.s = s;
        this.startMs = startMs;
        this.startSeq = startSeq;
        this.endMs = endMs;
        this.endSeq = endSeq;
        this.rev = rev;
        this.withDeleted = withDeleted;
    }

    /** Advances to the next entry in range; false at the end. */
    public boolean next() {
        if (done) {
            return false;
        }
        while (true) {
            if (node < 0) {
                int first;
                if (!rev) {
                    first = startMs == 0 && startSeq == 0 ? 0 : Math.max(0, s.floorNode(startMs, startSeq));
                } else {
                    first = endMs == 0 && endSeq == 0 ? s.nodeCount - 1 : s.floorNode(endMs, endSeq);
                }
                if (first < 0 || first >= s.nodeCount) {
                    done = true;
                    return false;
                }
                enterNode(first);
            }
            while (nextInNode()) {
                if (!withDeleted && (flags & StreamValue.FLAG_DELETED) != 0) {
                    continue;
                }
                if (!rev) {
                    if (StreamId.compare(ms, seq, startMs, startSeq) < 0) {
                        continue;
                    }
                    if (StreamId.compare(ms, seq, endMs, endSeq) > 0) {
                        done = true;
                        return false;
                    }
                } else {
                    if (StreamId.compare(ms, seq, endMs, endSeq) > 0) {
                        continue;
                    }
                    if (StreamId.compare(ms, seq, startMs, startSeq) < 0) {
                        done = true;
                        return false;
                    }
                }
                return true;
            }
            int nextNode = rev ? node - 1 : node + 1;
            if (nextNode < 0 || nextNode >= s.nodeCount) {
                done = true;
                return false;
            }
            enterNode(nextNode);
        }
    }

    /** Positions the cursor before the first (or after the last, in reverse) entry of node {@code i}. */
    void enterNode(int i) {
        node = i;
        byte[] n = s.nodes[i];
        int end = s.used[i];
        int p = ListpackElements.next(n, ListpackElements.next(n, 0)); // count, deleted
        masterFieldCount = (int) ListpackElements.intAt(n, p);
        p = ListpackElements.next(n, p);
        masterFieldsPos = p;
        for (int f = 0; f < masterFieldCount; f++) {
            p = ListpackElements.next(n, p);
        }
        p = ListpackElements.next(n, p); // master terminator
        entries = 0;
        while (p < end) {
            if (entries == starts.length) {
                starts = Arrays.copyOf(starts, entries * 2);
            }
            starts[entries++] = p;
            int fl = (int) ListpackElements.intAt(n, p);
            p = ListpackElements.next(n, p);
            p = ListpackElements.next(n, p);
            p = ListpackElements.next(n, p);
            long skip;
            if ((fl & StreamValue.FLAG_SAMEFIELDS) != 0) {
                skip = masterFieldCount;
            } else {
                skip = 1 + 2 * ListpackElements.intAt(n, p);
            }
            for (long j = 0; j < skip; j++) {
                p = ListpackElements.next(n, p);
            }
            p = ListpackElements.next(n, p); // lp-count
        }
        k = rev ? entries : -1;
    }

    /** Moves to the next entry of the current node, deleted or not; false past its end. */
    boolean nextInNode() {
        k += rev ? -1 : 1;
        if (k < 0 || k >= entries) {
            return false;
        }
        byte[] n = s.nodes[node];
        int p = starts[k];
        flagsPos = p;
        flags = (int) ListpackElements.intAt(n, p);
        p = ListpackElements.next(n, p);
        ms = s.nodeMs[node] + ListpackElements.intAt(n, p);
        p = ListpackElements.next(n, p);
        seq = s.nodeSeq[node] + ListpackElements.intAt(n, p);
        p = ListpackElements.next(n, p);
        if ((flags & StreamValue.FLAG_SAMEFIELDS) != 0) {
            fieldCount = masterFieldCount;
        } else {
            fieldCount = (int) ListpackElements.intAt(n, p);
            p = ListpackElements.next(n, p);
        }
        fieldsPos = p;
        return true;
    }

    public long ms() {
        return ms;
    }

    public long seq() {
        return seq;
    }

    public StreamId id() {
        return new StreamId(ms, seq);
    }

    /** Number of field-value pairs of the current entry. */
    public int fieldCount() {
        return fieldCount;
    }

    boolean currentDeleted() {
        return (flags & StreamValue.FLAG_DELETED) != 0;
    }

    /**
     * Visits field_1, value_1, ... of the current entry; integers are formatted into {@code scratch}
     * (at least 20 bytes), so a visitor must use each slice before returning.
     */
    public void visitFields(byte[] scratch, ElementVisitor v) {
        byte[] n = s.nodes[node];
        boolean same = (flags & StreamValue.FLAG_SAMEFIELDS) != 0;
        int mp = masterFieldsPos;
        int p = fieldsPos;
        for (int i = 0; i < fieldCount; i++) {
            if (same) {
                ListpackElements.visit(n, mp, scratch, v);
                mp = ListpackElements.next(n, mp);
            } else {
                ListpackElements.visit(n, p, scratch, v);
                p = ListpackElements.next(n, p);
            }
            ListpackElements.visit(n, p, scratch, v);
            p = ListpackElements.next(n, p);
        }
    }

    /** Flags the current entry deleted, in place (the node's counters are the caller's business). */
    void flagCurrentDeleted() {
        flags |= StreamValue.FLAG_DELETED;
        ListpackElements.writeInt(s.nodes[node], flagsPos, flags);
    }

    /** Deletes the current entry (Redis's streamIteratorRemoveEntry); the cursor is then finished. */
    void removeCurrent() {
        flagCurrentDeleted();
        byte[] n = s.nodes[node];
        long count = ListpackElements.intAt(n, 0);
        if (count == 1) {
            s.removeNode(node);
        } else {
            s.replaceInt(node, 0, count - 1);
            n = s.nodes[node];
            int p = ListpackElements.next(n, 0);
            s.replaceInt(node, p, ListpackElements.intAt(n, p) + 1);
        }
        s.length--;
        done = true;
    }
}
