package dev.spinel.store.types;

import dev.spinel.store.TypedValue;
import dev.spinel.store.ValueType;

import java.util.Arrays;

/**
 * A Redis sorted set in one of Redis 7.0's two encodings:
 * <ul>
 * <li>{@code listpack}: while it has at most {@code zset-max-listpack-entries} members, none longer than
 * {@code zset-max-listpack-value} bytes: a {@link ZListpack} (members packed in one array, scores in
 * another; no object per element; lookups by member are linear, as in Redis);
 * <li>{@code skiplist}: a {@link ZSkipList} with spans (O(log n) rank and range) plus a
 * {@link MemberTable} member→score map (O(1) ZSCORE). The two share each member's bytes.
 * </ul>
 * Order is by score, then by member bytes (unsigned). Ranks are 0-based. Members are passed as slices of
 * a caller's buffer and copied when stored.
 *
 * <p>Not thread-safe: guarded by the lock of the segment holding the key.
 */
public final class ZSetValue implements TypedValue {
    private ZListpack lp; // listpack form; null in skiplist form
    private ZSkipList zsl;
    private MemberTable dict;

    private ZSetValue() {
    }

    public static ZSetValue createListpack() {
        ZSetValue z = new ZSetValue();
        z.lp = new ZListpack(4, 16);
        return z;
    }

    public static ZSetValue createSkiplist() {
        ZSetValue z = new ZSetValue();
        z.zsl = new ZSkipList();
        z.dict = new MemberTable(8, true);
        return z;
    }

    /** The encoding ZADD creates a key with, judged by its first member's length (Redis 7.0). */
    public static ZSetValue createFor(int firstMemberLength, SetLimits limits) {
        if (limits.zsetMaxListpackEntries() == 0 || limits.zsetMaxListpackValue() < firstMemberLength) {
            return createSkiplist();
        }
        return createListpack();
    }

    @Override
    public ValueType type() {
        return ValueType.ZSET;
    }

    @Override
    public String encoding() {
        return lp != null ? "listpack" : "skiplist";
    }

    public boolean isListpack() {
        return lp != null;
    }

    @Override
    public long size() {
        return lp != null ? lp.size() : zsl.length();
    }

    @Override
    public long memoryUsage() {
        if (lp != null) {
            return 16 + lp.memoryUsage();
        }
        // per node: object, forward and span arrays (average 1.33 levels)
        return 16 + dict.memoryUsage() + zsl.length() * 80L;
    }

    @Override
    public ZSetValue copy() {
        if (lp != null) {
            ZSetValue z = new ZSetValue();
            z.lp = lp.copy();
            return z;
        }
        ZSetValue z = createSkiplist();
        for (ZSkipList.Node n = zsl.first(); n != null; n = n.next()) {
            byte[] m = n.member.clone();
            z.zsl.insert(n.score, m);
            z.dict.add(m, n.score);
        }
        return z;
    }

    // ---------------------------------------------------------------- lookup

    /** The member's score, or NaN when absent (scores are never NaN). */
    public double score(byte[] b, int off, int len) {
        if (lp != null) {
            int i = lp.find(b, off, len);
            return i < 0 ? Double.NaN : lp.score(i);
        }
        int slot = dict.find(b, off, len);
        return slot < 0 ? Double.NaN : dict.valueAt(slot);
    }

    public double score(byte[] m) {
        return score(m, 0, m.length);
    }

    /** 0-based rank of the member (from the highest score when {@code reverse}), or -1. */
    public long rank(byte[] b, int off, int len, boolean reverse) {
        long r;
        if (lp != null) {
            r = lp.find(b, off, len);
            if (r < 0) {
                return -1;
            }
        } else {
            int slot = dict.find(b, off, len);
            if (slot < 0) {
                return -1;
            }
            r = zsl.rank(dict.valueAt(slot), dict.memberAt(slot));
        }
        return reverse ? size() - 1 - r : r;
    }

    // ---------------------------------------------------------------- mutation

    /**
     * Inserts a member the caller knows is absent, converting to a skip list first if the listpack would
     * exceed its limits (Redis's zsetAdd). A skip list keeps the array; a listpack copies its bytes.
     */
    public void insert(byte[] member, double score, SetLimits limits) {
        if (lp != null && (lp.size() + 1L > limits.zsetMaxListpackEntries()
                || member.length > limits.zsetMaxListpackValue())) {
            convertToSkiplist();
        }
        if (lp != null) {
            lp.insert(member, 0, member.length, score);
        } else {
            zsl.insert(score, member);
            dict.add(member, score);
        }
    }

    /** Inserts an absent member given as a slice of a caller's buffer (copied once, into whichever form). */
    public void insert(byte[] b, int off, int len, double score, SetLimits limits) {
        if (lp != null && (lp.size() + 1L > limits.zsetMaxListpackEntries() || len > limits.zsetMaxListpackValue())) {
            convertToSkiplist();
        }
        if (lp != null) {
            lp.insert(b, off, len, score);
        } else {
            byte[] member = Arrays.copyOfRange(b, off, off + len);
            zsl.insert(score, member);
            dict.add(member, score);
        }
    }

    /** Changes the score of a present member. */
    public void updateScore(byte[] b, int off, int len, double newScore) {
        if (lp != null) {
            lp.updateScore(lp.find(b, off, len), newScore);
            return;
        }
        int slot = dict.find(b, off, len);
        byte[] m = dict.memberAt(slot);
        zsl.delete(dict.valueAt(slot), m);
        zsl.insert(newScore, m);
        dict.setValue(slot, newScore);
    }

    public boolean remove(byte[] b, int off, int len) {
        if (lp != null) {
            int i = lp.find(b, off, len);
            if (i < 0) {
                return false;
            }
            lp.removeRange(i, i);
            return true;
        }
        int slot = dict.find(b, off, len);
        if (slot < 0) {
            return false;
        }
        zsl.delete(dict.valueAt(slot), dict.memberAt(slot));
        dict.removeSlot(slot);
        return true;
    }

    public boolean remove(byte[] m) {
        return remove(m, 0, m.length);
    }

    /** Removes the elements of 0-based ranks [start, end] (already clamped); returns how many. */
    public long removeRanks(long start, long end) {
        if (start > end) {
            return 0;
        }
        if (lp != null) {
            lp.removeRange((int) start, (int) end);
            return end - start + 1;
        }
        long before = zsl.length();
        zsl.deleteRankRange(start, end, node -> dict.remove(node.member, 0, node.member.length));
        return before - zsl.length();
    }

    public void convertToSkiplist() {
        ZSkipList l = new ZSkipList();
        MemberTable d = new MemberTable(lp.size(), true);
        for (int i = 0; i < lp.size(); i++) {
            byte[] m = lp.member(i);
            l.insert(lp.score(i), m);
            d.add(m, lp.score(i));
        }
        zsl = l;
        dict = d;
        lp = null;
    }

    /**
     * Converts a skip list back to a listpack when it fits (Redis's zsetConvertToListpackIfNeeded, used
     * for the destinations of ZUNIONSTORE/ZINTERSTORE/ZDIFFSTORE).
     */
    public void convertToListpackIfNeeded(SetLimits limits) {
        if (lp != null || zsl.length() > limits.zsetMaxListpackEntries()) {
            return;
        }
        int bytes = 0;
        for (ZSkipList.Node x = zsl.first(); x != null; x = x.next()) {
            if (x.member.length > limits.zsetMaxListpackValue()) {
                return;
            }
            bytes += x.member.length;
        }
        ZListpack p = new ZListpack(zsl.length(), bytes);
        for (ZSkipList.Node x = zsl.first(); x != null; x = x.next()) {
            p.insert(x.member, 0, x.member.length, x.score);
        }
        lp = p;
        zsl = null;
        dict = null;
    }

    // ---------------------------------------------------------------- ranges

    /** Number of elements below the range's min: the rank of the first element in range. */
    public long countBelow(ScoreRange r) {
        return lp != null ? lp.countBelow(r) : zsl.countBelow(r);
    }

    /** Number of elements not above the range's max: one past the rank of the last in range. */
    public long countUpToMax(ScoreRange r) {
        return lp != null ? lp.countUpToMax(r) : zsl.countUpToMax(r);
    }

    public long countBelow(LexRange r) {
        return lp != null ? lp.countBelow(r) : zsl.countBelow(r);
    }

    public long countUpToMax(LexRange r) {
        return lp != null ? lp.countUpToMax(r) : zsl.countUpToMax(r);
    }

    /**
     * Rank of the last element that is not above the lex range's max, found the way Redis finds it
     * (a scan from the tail of a listpack, a descent of the skip list), or -1. The two differ only when
     * members with different scores are not in lexicographic order, where Redis's answer is by design
     * encoding-dependent.
     */
    public long lastUpToMax(LexRange r) {
        return lp != null ? lp.lastUpToMax(r) : zsl.countUpToMax(r) - 1;
    }

    /** A cursor at 0-based rank {@code rank} (invalid if out of range). */
    public Cursor cursor(long rank) {
        Cursor c = new Cursor();
        c.seek(rank);
        return c;
    }

    /**
     * Walks elements in order from a rank, forwards or backwards. Valid while the set is not modified.
     * The member can be read without a copy as {@code memberArray()[memberOffset() .. +memberLength())}.
     */
    public final class Cursor {
        private int index = -1;
        private ZSkipList.Node node;

        public void seek(long rank) {
            if (lp != null) {
                index = rank >= 0 && rank < lp.size() ? (int) rank : -1;
            } else {
                node = zsl.byRank(rank);
            }
        }

        public boolean valid() {
            return lp != null ? index >= 0 : node != null;
        }

        /** The member's bytes (a copy for a listpack; prefer the slice accessors for replies). */
        public byte[] member() {
            return lp != null ? lp.member(index) : node.member;
        }

        public byte[] memberArray() {
            return lp != null ? lp.blob() : node.member;
        }

        public int memberOffset() {
            return lp != null ? lp.start(index) : 0;
        }

        public int memberLength() {
            return lp != null ? lp.length(index) : node.member.length;
        }

        public double score() {
            return lp != null ? lp.score(index) : node.score;
        }

        public void next() {
            if (lp != null) {
                index = index + 1 < lp.size() ? index + 1 : -1;
            } else {
                node = node.next();
            }
        }

        public void prev() {
            if (lp != null) {
                index--;
            } else {
                node = node.prev();
            }
        }

        /** Whether the member is inside or beyond the lex range's max (no copy for a listpack). */
        public boolean memberBelowMax(LexRange r) {
            return lp != null ? r.belowMax(lp.blob(), lp.start(index), lp.end(index)) : r.belowMax(node.member);
        }

        public boolean memberAboveMin(LexRange r) {
            return lp != null ? r.aboveMin(lp.blob(), lp.start(index), lp.end(index)) : r.aboveMin(node.member);
        }
    }

    /** Receives ZSCAN elements. */
    public interface Visitor {
        void visit(byte[] member, double score);
    }

    /** One ZSCAN step: a listpack returns everything with cursor 0, a skip list walks its table. */
    public long scan(long cursor, int n, Visitor v) {
        if (lp != null) {
            for (int i = 0; i < lp.size(); i++) {
                v.visit(lp.member(i), lp.score(i));
            }
            return 0;
        }
        return dict.scan(cursor, n, v::visit);
    }

}
