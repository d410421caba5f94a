package dev.spinel.store.types.stream;

import dev.spinel.store.TypedValue;
import dev.spinel.store.ValueType;
import dev.spinel.store.types.CollectionSettings;
import dev.spinel.store.types.ListpackElements;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * A Redis stream, laid out as Redis 7.0's (t_stream.c): a sorted sequence of nodes, each keyed by its
 * master ID (two longs in parallel arrays, where Redis uses a radix tree) and holding a listpack of
 * entries in Redis's exact element encoding (see {@link ListpackElements}), without its header:
 * <pre>
 *   master entry: count | deleted | num-fields | field_1 .. field_N | 0
 *   each entry:   flags | ms-delta | seq-delta | [num-fields | field_1] value_1 .. [field_N] value_N | lp-count
 * </pre>
 * Entries whose fields are the master's store only values (SAMEFIELDS flag); deleted entries are
 * flagged and stay until their node empties, as in Redis. Identical node boundaries make MAXLEN ~ /
 * MINID ~ trim exactly the entries Redis trims, and make RDB saving a copy of the node bytes. No object
 * per entry or field: an entry costs its listpack bytes (≈ 4 bytes + its values when fields repeat).
 *
 * <p>Not thread-safe: guarded by the lock of the segment holding the key. A stream may be empty and
 * still exist (XDEL, XTRIM, XGROUP CREATE ... MKSTREAM), unlike other collections.
 */
public final class StreamValue implements TypedValue {
    public static final int FLAG_DELETED = 1;
    public static final int FLAG_SAMEFIELDS = 2;
    /** Redis's STREAM_LISTPACK_MAX_SIZE: a node never grows past 1 GiB whatever the configuration. */
    static final long LISTPACK_MAX_SIZE = 1L << 30;

    /** Outcomes of {@link #append}. */
    public static final int APPENDED = 0;
    public static final int ID_TOO_SMALL = 1;
    public static final int TOO_LARGE = 2;

    final CollectionSettings settings;
    long[] nodeMs = new long[2];
    long[] nodeSeq = new long[2];
    byte[][] nodes = new byte[2][];
    int[] used = new int[2];
    int nodeCount;
    /** Sum of the node arrays' lengths, kept current so that memory accounting costs O(1) per write. */
    long nodeArrayBytes;

    long length;
    long lastMs;
    long lastSeq;
    long firstMs;
    long firstSeq;
    long maxDeletedMs;
    long maxDeletedSeq;
    long entriesAdded;
    /** Groups by name (byte order, as Redis's rax), or {@code null} when there are none. */
    private TreeMap<byte[], StreamGroup> groups;

    public StreamValue(CollectionSettings settings) {
        this.settings = settings;
    }

    @Override
    public ValueType type() {
        return ValueType.STREAM;
    }

    @Override
    public String encoding() {
        return "stream";
    }

    /** Approximate heap bytes, O(groups): called before and after every write for the accounting. */
    @Override
    public long memoryUsage() {
        long m = 96 + nodes.length * 32L + nodeCount * 16L + nodeArrayBytes;
        if (groups != null) {
            for (StreamGroup g : groups.values()) {
                m += g.memoryUsage();
            }
        }
        return m;
    }

    @Override
    public StreamValue copy() {
        StreamValue s = new StreamValue(settings);
        s.nodeMs = Arrays.copyOf(nodeMs, Math.max(2, nodeCount));
        s.nodeSeq = Arrays.copyOf(nodeSeq, Math.max(2, nodeCount));
        s.used = Arrays.copyOf(used, Math.max(2, nodeCount));
        s.nodes = new byte[Math.max(2, nodeCount)][];
        for (int i = 0; i < nodeCount; i++) {
            s.nodes[i] = Arrays.copyOf(nodes[i], used[i]);
            s.nodeArrayBytes += used[i];
        }
        s.nodeCount = nodeCount;
        s.length = length;
        s.lastMs = lastMs;
        s.lastSeq = lastSeq;
        s.firstMs = firstMs;
        s.firstSeq = firstSeq;
        s.maxDeletedMs = maxDeletedMs;
        s.maxDeletedSeq = maxDeletedSeq;
        s.entriesAdded = entriesAdded;
        if (groups != null) {
            s.groups = new TreeMap<>(Arrays::compareUnsigned);
            for (Map.Entry<byte[], StreamGroup> e : groups.entrySet()) {
                s.groups.put(e.getKey(), e.getValue().copy());
            }
        }
        return s;
    }

    /** Live entries (XLEN). */
    @Override
    public long size() {
        return length;
    }

    // ------------------------------------------------------------ metadata

    public long lastMs() {
        return lastMs;
    }

    public long lastSeq() {
        return lastSeq;
    }

    public long firstMs() {
        return firstMs;
    }

    public long firstSeq() {
        return firstSeq;
    }

    public long maxDeletedMs() {
        return maxDeletedMs;
    }

    public long maxDeletedSeq() {
        return maxDeletedSeq;
    }

    public long entriesAdded() {
        return entriesAdded;
    }

    /**
     * Redis's streamEstimateDistanceFromFirstEverEntry: the entries-read counter of a group whose last
     * delivered ID is {@code ms-seq}, when the stream's metadata tells it; {@link StreamGroup#INVALID_ENTRIES_READ}
     * when it cannot (an ID past the last one, or before a deletion that fragments the stream).
     */
    public long distanceFromFirstEver(long ms, long seq) {
        if (entriesAdded == 0) {
            return 0;
        }
        int cmpLast = StreamId.compare(ms, seq, lastMs, lastSeq);
        if (length == 0 && cmpLast < 1) {
            return entriesAdded;
        }
        if (cmpLast == 0) {
            return entriesAdded;
        } else if (cmpLast > 0) {
            return StreamGroup.INVALID_ENTRIES_READ;
        }
        int cmpFirst = StreamId.compare(ms, seq, firstMs, firstSeq);
        boolean noTombstones = (maxDeletedMs == 0 && maxDeletedSeq == 0)
                || StreamId.compare(maxDeletedMs, maxDeletedSeq, firstMs, firstSeq) < 0;
        if (noTombstones) {
            if (cmpFirst < 0) {
                return entriesAdded - length;
            } else if (cmpFirst == 0) {
                return entriesAdded - length + 1;
            }
        }
        return StreamGroup.INVALID_ENTRIES_READ;
    }

    /** XSETID: the caller has checked the new values against the stream. */
    public void setLastId(long ms, long seq) {
        lastMs = ms;
        lastSeq = seq;
    }

    public void setEntriesAdded(long n) {
        entriesAdded = n;
    }

    public void setMaxDeleted(long ms, long seq) {
        maxDeletedMs = ms;
        maxDeletedSeq = seq;
    }

    /** Restores the metadata read from an RDB file. */
    public void restoreMeta(long length, long lastMs, long lastSeq, long firstMs, long firstSeq,
            long maxDelMs, long maxDelSeq, long entriesAdded) {
        this.length = length;
        this.lastMs = lastMs;
        this.lastSeq = lastSeq;
        this.firstMs = firstMs;
        this.firstSeq = firstSeq;
        this.maxDeletedMs = maxDelMs;
        this.maxDeletedSeq = maxDelSeq;
        this.entriesAdded = entriesAdded;
    }

    // ------------------------------------------------------------ groups

    /** The groups, sorted by name; empty when none. */
    public Map<byte[], StreamGroup> groups() {
        if (groups == null) {
            groups = new TreeMap<>(Arrays::compareUnsigned);
        }
        return groups;
    }

    public int groupCount() {
        return groups == null ? 0 : groups.size();
    }

    // ------------------------------------------------------------ nodes (for the RDB codec)

    public int nodeCount() {
        return nodeCount;
    }

    public long nodeMs(int i) {
        return nodeMs[i];
    }

    public long nodeSeq(int i) {
        return nodeSeq[i];
    }

    /** Node {@code i}'s elements (no listpack header or terminator); valid up to {@link #nodeUsed}. */
    public byte[] nodeBytes(int i) {
        return nodes[i];
    }

    public int nodeUsed(int i) {
        return used[i];
    }

    /** Appends a node read from an RDB file (elements without header or terminator), in ID order. */
    public void addNode(long ms, long seq, byte[] elements) {
        insertNode(nodeCount, ms, seq, elements, elements.length);
    }

    // ------------------------------------------------------------ append

    /**
     * XADD's append (Redis's streamAppendItem). {@code idGiven}/{@code seqGiven} select the ID: none
     * ("*": {@code now}-based, or last+1), ms only ("ms-*"), or both. {@code offLen} holds offset and
     * length in {@code buf} of field_1, value_1, ... Returns {@link #APPENDED} (the new ID is then
     * {@link #lastMs}-{@link #lastSeq}), {@link #ID_TOO_SMALL} or {@link #TOO_LARGE}.
     */
    public int append(boolean idGiven, boolean seqGiven, long ms, long seq, long now, byte[] buf, int[] offLen) {
        return StreamAppend.append(this, idGiven, seqGiven, ms, seq, now, buf, offLen);
    }

    void ensure(int node, int more) {
        byte[] n = nodes[node];
        if (used[node] + more > n.length) {
            nodes[node] = Arrays.copyOf(n, Math.max(used[node] + more, n.length + (n.length >> 1)));
            nodeArrayBytes += nodes[node].length - n.length;
        }
    }

    /** Replaces the integer element at {@code pos} of a node (its size may change). */
    void replaceInt(int node, int pos, long v) {
        byte[] n = nodes[node];
        int oldEnd = ListpackElements.next(n, pos);
        int newSize = ListpackElements.intSize(v);
        int delta = newSize - (oldEnd - pos);
        if (delta != 0) {
            ensure(node, Math.max(0, delta));
            n = nodes[node];
            System.arraycopy(n, oldEnd, n, oldEnd + delta, used[node] - oldEnd);
            used[node] += delta;
        }
        ListpackElements.writeInt(n, pos, v);
    }

    void insertNode(int at, long ms, long seq, byte[] n, int usedBytes) {
        if (nodeCount == nodes.length) {
            int cap = nodes.length * 2;
            nodes = Arrays.copyOf(nodes, cap);
            nodeMs = Arrays.copyOf(nodeMs, cap);
            nodeSeq = Arrays.copyOf(nodeSeq, cap);
            used = Arrays.copyOf(used, cap);
        }
        int tailLen = nodeCount - at;
        System.arraycopy(nodes, at, nodes, at + 1, tailLen);
        System.arraycopy(nodeMs, at, nodeMs, at + 1, tailLen);
        System.arraycopy(nodeSeq, at, nodeSeq, at + 1, tailLen);
        System.arraycopy(used, at, used, at + 1, tailLen);
        nodes[at] = n;
        nodeArrayBytes += n.length;
        nodeMs[at] = ms;
        nodeSeq[at] = seq;
        used[at] = usedBytes;
        nodeCount++;
    }

    void removeNode(int at) {
        nodeArrayBytes -= nodes[at].length;
        int tailLen = nodeCount - at - 1;
        System.arraycopy(nodes, at + 1, nodes, at, tailLen);
        System.arraycopy(nodeMs, at + 1, nodeMs, at, tailLen);
        System.arraycopy(nodeSeq, at + 1, nodeSeq, at, tailLen);
        System.arraycopy(used, at + 1, used, at, tailLen);
        nodeCount--;
        nodes[nodeCount] = null;
    }

    /** Index of the last node whose master ID is ≤ the given ID (Redis's raxSeek "<="), or -1. */
    int floorNode(long ms, long seq) {
        int lo = 0;
        int hi = nodeCount - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (StreamId.compare(nodeMs[mid], nodeSeq[mid], ms, seq) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    // ------------------------------------------------------------ iteration, deletion, trimming

    /** A cursor over the live entries with IDs in [start, end], forward or reverse. */
    public StreamCursor cursor(long startMs, long startSeq, long endMs, long endSeq, boolean rev) {
        return new StreamCursor(this, startMs, startSeq, endMs, endSeq, rev, false);
    }

    /** Whether a live entry with this ID exists. */
    public boolean contains(long ms, long seq) {
        StreamCursor c = cursor(ms, seq, ms, seq, false);
        return c.next();
    }

    /**
     * XDEL of one ID (Redis's streamDeleteItem): flags the entry deleted, or drops its node when it was
     * the node's last live entry. Returns false when no live entry has this ID.
     */
    public boolean delete(long ms, long seq) {
        StreamCursor c = cursor(ms, seq, ms, seq, false);
        if (!c.next()) {
            return false;
        }
        c.removeCurrent();
        return true;
    }

    /** Recomputes the first ID after deletions (Redis's streamGetEdgeID skipping tombstones). */
    public void refreshFirstId() {
        if (length == 0) {
            firstMs = 0;
            firstSeq = 0;
            return;
        }
        StreamCursor c = cursor(0, 0, -1L, -1L, false);
        if (c.next()) {
            firstMs = c.ms();
            firstSeq = c.seq();
        }
    }

    /** The first (or last) entry's ID counting deleted ones too, or {@code null} when no node exists. */
    public StreamId edgeIdWithTombstones(boolean first) {
        StreamCursor c = new StreamCursor(this, 0, 0, -1L, -1L, !first, true);
        return c.next() ? new StreamId(c.ms(), c.seq()) : null;
    }

    /**
     * Trims from the head (Redis 7.0's streamTrim): by length ({@code byMaxLen}) or removing IDs below
     * {@code minMs-minSeq}. Approximate trimming removes whole nodes only; {@code limit} (0 = none) caps
     * the entries removed. Returns the number of entries removed. See {@link StreamTrim}.
     */
    public long trim(boolean byMaxLen, long maxLen, long minMs, long minSeq, boolean approx, long limit) {
        return StreamTrim.trim(this, byMaxLen, maxLen, minMs, minSeq, approx, limit);
    }
}
