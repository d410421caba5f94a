package dev.spinel.store.types;

import dev.spinel.store.TypedValue;
import dev.spinel.store.ValueType;

import java.util.Arrays;

/**
 * A Redis sorted set in one of Redis 7.0's two encodings:
 * <ul>
 * <li>{@code listpack}: while it has at most {@code zset-max-listpack-entries} members, none longer than
 * {@code zset-max-listpack-value} bytes: parallel sorted arrays of members and {@code double} scores
 * (no object per element; lookups by member are linear, as in Redis);
 * <li>{@code skiplist}: a {@link ZSkipList} with spans (O(log n) rank and range) plus a
 * {@link MemberTable} member→score map (O(1) ZSCORE). The two share each member's bytes.
 * </ul>
 * Order is by score, then by member bytes (unsigned). Ranks are 0-based. Members are passed as slices of
 * a caller's buffer; methods that keep a member say so.
 *
 * <p>Not thread-safe: guarded by the lock of the segment holding the key.
 */
public final class ZSetValue implements TypedValue {
    // listpack form (members == null in skiplist form)
    private byte[][] members;
    private double[] scores;
    private int count;
    private long memberBytes; // heap bytes of the listpack's member arrays, so memoryUsage() is O(1)
    // skiplist form
    private ZSkipList zsl;
    private MemberTable dict;

    private ZSetValue() {
    }

    public static ZSetValue createListpack() {
        ZSetValue z = new ZSetValue();
        z.members = new byte[4][];
        z.scores = new double[4];
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
        return members != null ? "listpack" : "skiplist";
    }

    public boolean isListpack() {
        return members != null;
    }

    @Override
    public long size() {
        return members != null ? count : zsl.length();
    }

    @Override
    public long memoryUsage() {
        if (members != null) {
            return 16 + ((12 + members.length * 4L + 7) & ~7L) + 16 + scores.length * 8L + memberBytes;
        }
        // per node: object, forward and span arrays (average 1.33 levels)
        return 16 + dict.memoryUsage() + zsl.length() * 80L;
    }

    @Override
    public ZSetValue copy() {
        if (members != null) {
            ZSetValue z = new ZSetValue();
            z.members = new byte[Math.max(4, count)][];
            for (int i = 0; i < count; i++) {
                z.members[i] = members[i].clone();
            }
            z.scores = Arrays.copyOf(scores, Math.max(4, count));
            z.count = count;
            z.memberBytes = memberBytes;
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

    private int lpFind(byte[] b, int off, int len) {
        for (int i = 0; i < count; i++) {
            byte[] m = members[i];
            if (m.length == len && Arrays.equals(m, 0, len, b, off, off + len)) {
                return i;
            }
        }
        return -1;
    }

    /** The member's score, or NaN when absent (scores are never NaN). */
    public double score(byte[] b, int off, int len) {
        if (members != null) {
            int i = lpFind(b, off, len);
            return i < 0 ? Double.NaN : scores[i];
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
        if (members != null) {
            r = lpFind(b, off, len);
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

    private int lpInsertPos(double score, byte[] m) {
        int lo = 0;
        int hi = count;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            double s = scores[mid];
            if (s < score || (s == score && Arrays.compareUnsigned(members[mid], m) < 0)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * Inserts a member the caller knows is absent (the array is kept, not copied), converting to a
     * skip list first if the listpack would exceed its limits (Redis's zsetAdd).
     */
    public void insert(byte[] member, double score, SetLimits limits) {
        if (members != null && (count + 1L > limits.zsetMaxListpackEntries()
                || member.length > limits.zsetMaxListpackValue())) {
            convertToSkiplist();
        }
        if (members != null) {
            score = score + 0.0; // -0 becomes 0, as Redis's d2string into the listpack does
            int pos = lpInsertPos(score, member);
            if (count == members.length) {
                members = Arrays.copyOf(members, count * 2);
                scores = Arrays.copyOf(scores, count * 2);
            }
            System.arraycopy(members, pos, members, pos + 1, count - pos);
            System.arraycopy(scores, pos, scores, pos + 1, count - pos);
            members[pos] = member;
            scores[pos] = score;
            count++;
            memberBytes += MemberTable.arrayBytes(member);
        } else {
            zsl.insert(score, member);
            dict.add(member, score);
        }
    }

    /** Changes the score of a present member. */
    public void updateScore(byte[] b, int off, int len, double newScore) {
        if (members != null) {
            newScore = newScore + 0.0; // -0 becomes 0 in a listpack
            int i = lpFind(b, off, len);
            byte[] m = members[i];
            removeIndex(i);
            int pos = lpInsertPos(newScore, m);
            System.arraycopy(members, pos, members, pos + 1, count - pos);
            System.arraycopy(scores, pos, scores, pos + 1, count - pos);
            members[pos] = m;
            scores[pos] = newScore;
            count++;
            memberBytes += MemberTable.arrayBytes(m);
            return;
        }
        int slot = dict.find(b, off, len);
        byte[] m = dict.memberAt(slot);
        zsl.delete(dict.valueAt(slot), m);
        zsl.insert(newScore, m);
        dict.setValue(slot, newScore);
    }

    private void removeIndex(int i) {
        memberBytes -= MemberTable.arrayBytes(members[i]);
        System.arraycopy(members, i + 1, members, i, count - i - 1);
        System.arraycopy(scores, i + 1, scores, i, count - i - 1);
        count--;
        members[count] = null;
    }

    public boolean remove(byte[] b, int off, int len) {
        if (members != null) {
            int i = lpFind(b, off, len);
            if (i < 0) {
                return false;
            }
            removeIndex(i);
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
        if (members != null) {
            int s = (int) start;
            int n = (int) (end - start + 1);
            for (int k = s; k < s + n; k++) {
                memberBytes -= MemberTable.arrayBytes(members[k]);
            }
            System.arraycopy(members, s + n, members, s, count - s - n);
            System.arraycopy(scores, s + n, scores, s, count - s - n);
            Arrays.fill(members, count - n, count, null);
            count -= n;
            return n;
        }
        long before = zsl.length();
        zsl.deleteRankRange(start, end, node -> dict.remove(node.member, 0, node.member.length));
        return before - zsl.length();
    }

    public void convertToSkiplist() {
        ZSkipList l = new ZSkipList();
        MemberTable d = new MemberTable(count, true);
        for (int i = 0; i < count; i++) {
            l.insert(scores[i], members[i]);
            d.add(members[i], scores[i]);
        }
        zsl = l;
        dict = d;
        members = null;
        scores = null;
        count = 0;
        memberBytes = 0;
    }

    /**
     * Converts a skip list back to a listpack when it fits (Redis's zsetConvertToListpackIfNeeded, used
     * for the destinations of ZUNIONSTORE/ZINTERSTORE/ZDIFFSTORE/ZRANGESTORE).
     */
    public void convertToListpackIfNeeded(SetLimits limits) {
        if (members != null || zsl.length() > limits.zsetMaxListpackEntries()) {
            return;
        }
        int n = zsl.length();
        for (ZSkipList.Node x = zsl.first(); x != null; x = x.next()) {
            if (x.member.length > limits.zsetMaxListpackValue()) {
                return;
            }
        }
        byte[][] m = new byte[Math.max(4, n)][];
        double[] s = new double[Math.max(4, n)];
        int i = 0;
        for (ZSkipList.Node x = zsl.first(); x != null; x = x.next()) {
            m[i] = x.member;
            s[i++] = x.score + 0.0;
        }
        members = m;
        scores = s;
        count = n;
        memberBytes = 0;
        for (int k = 0; k < n; k++) {
            memberBytes += MemberTable.arrayBytes(m[k]);
        }
        zsl = null;
        dict = null;
    }

    // ---------------------------------------------------------------- ranges

    /** Number of elements below the range's min: the rank of the first element in range. */
    public long countBelow(ScoreRange r) {
        if (members != null) {
            int i = 0;
            while (i < count && !r.aboveMin(scores[i])) {
                i++;
            }
            return i;
        }
        return zsl.countBelow(r);
    }

    /** Number of elements not above the range's max: one past the rank of the last in range. */
    public long countUpToMax(ScoreRange r) {
        if (members != null) {
            int i = 0;
            while (i < count && r.belowMax(scores[i])) {
                i++;
            }
            return i;
        }
        return zsl.countUpToMax(r);
    }

    public long countBelow(LexRange r) {
        if (members != null) {
            int i = 0;
            while (i < count && !r.aboveMin(members[i])) {
                i++;
            }
            return i;
        }
        return zsl.countBelow(r);
    }

    public long countUpToMax(LexRange r) {
        if (members != null) {
            int i = 0;
            while (i < count && r.belowMax(members[i])) {
                i++;
            }
            return i;
        }
        return zsl.countUpToMax(r);
    }

    /**
     * Rank of the last element that is not above the lex range's max, found the way Redis finds it
     * (a scan from the tail of a listpack, a descent of the skip list), or -1. The two differ only when
     * members with different scores are not in lexicographic order, where Redis's answer is by design
     * encoding-dependent.
     */
    public long lastUpToMax(LexRange r) {
        if (members != null) {
            int i = count - 1;
            while (i >= 0 && !r.belowMax(members[i])) {
                i--;
            }
            return i;
        }
        return zsl.countUpToMax(r) - 1;
    }

    /** A cursor at 0-based rank {@code rank} (invalid if out of range). */
    public Cursor cursor(long rank) {
        Cursor c = new Cursor();
        c.seek(rank);
        return c;
    }

    /**
     * Walks elements in order from a rank, forwards or backwards. Valid while the set is not modified.
     */
    public final class Cursor {
        private int index = -1;
        private ZSkipList.Node node;

        public void seek(long rank) {
            if (members != null) {
                index = rank >= 0 && rank < count ? (int) rank : -1;
            } else {
                node = zsl.byRank(rank);
            }
        }

        public boolean valid() {
            return members != null ? index >= 0 : node != null;
        }

        public byte[] member() {
            return members != null ? members[index] : node.member;
        }

        public double score() {
            return members != null ? scores[index] : node.score;
        }

        public void next() {
            if (members != null) {
                index = index + 1 < count ? index + 1 : -1;
            } else {
                node = node.next();
            }
        }

        public void prev() {
            if (members != null) {
                index--;
            } else {
                node = node.prev();
            }
        }
    }

    /** Receives ZSCAN elements. */
    public interface Visitor {
        void visit(byte[] member, double score);
    }

    /** One ZSCAN step: a listpack returns everything with cursor 0, a skip list walks its table. */
    public long scan(long cursor, int n, Visitor v) {
        if (members != null) {
            for (int i = 0; i < count; i++) {
                v.visit(members[i], scores[i]);
            }
            return 0;
        }
        return dict.scan(cursor, n, v::visit);
    }
}
