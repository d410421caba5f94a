package dev.spinel.store.types;

import java.util.Arrays;

/**
 * The compact form of a small sorted set (Redis's listpack encoding): all members back to back in one
 * {@code byte[]}, their end offsets in an {@code int[]} and their scores in a {@code double[]}, sorted
 * by (score, member bytes). Three arrays per sorted set instead of an object per member; lookups by
 * member are linear, as in Redis (the form is only used up to {@code zset-max-listpack-entries}).
 * Scores are stored as Redis's d2string would store them: {@code -0} becomes {@code 0}.
 *
 * <p>Not thread-safe: guarded by the lock of the segment holding the key.
 */
final class ZListpack {
    private byte[] blob;
    private int blobLen;
    private int[] ends;
    private double[] scores;
    private int count;

    ZListpack(int capacity, int bytes) {
        blob = new byte[Math.max(16, bytes)];
        ends = new int[Math.max(4, capacity)];
        scores = new double[Math.max(4, capacity)];
    }

    int size() {
        return count;
    }

    byte[] blob() {
        return blob;
    }

    int start(int i) {
        return i == 0 ? 0 : ends[i - 1];
    }

    int end(int i) {
        return ends[i];
    }

    int length(int i) {
        return ends[i] - start(i);
    }

    double score(int i) {
        return scores[i];
    }

    byte[] member(int i) {
        return Arrays.copyOfRange(blob, start(i), ends[i]);
    }

    int find(byte[] b, int off, int len) {
        int s = 0;
        for (int i = 0; i < count; i++) {
            int e = ends[i];
            if (e - s == len && Arrays.equals(blob, s, e, b, off, off + len)) {
                return i;
            }
            s = e;
        }
        return -1;
    }

    private int insertPos(double score, byte[] b, int off, int len) {
        int lo = 0;
        int hi = count;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            double sc = scores[mid];
            if (sc < score || (sc == score && Arrays.compareUnsigned(blob, start(mid), ends[mid], b, off, off + len) < 0)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Inserts a member the caller knows is absent, in order. */
    void insert(byte[] b, int off, int len, double score) {
        score = score + 0.0; // -0 becomes 0, as Redis's d2string into the listpack does
        int pos = insertPos(score, b, off, len);
        if (count == ends.length) {
            ends = Arrays.copyOf(ends, count * 2);
            scores = Arrays.copyOf(scores, count * 2);
        }
        if (blobLen + len > blob.length) {
            blob = Arrays.copyOf(blob, Math.max(blob.length * 2, blobLen + len));
        }
        int at = start(pos);
        System.arraycopy(blob, at, blob, at + len, blobLen - at);
        System.arraycopy(b, off, blob, at, len);
        blobLen += len;
        System.arraycopy(ends, pos, ends, pos + 1, count - pos);
        System.arraycopy(scores, pos, scores, pos + 1, count - pos);
        count++;
        ends[pos] = at + len;
        scores[pos] = score;
        for (int i = pos + 1; i < count; i++) {
            ends[i] += len;
        }
    }

    /** Removes the elements of indexes [from, to]. */
    void removeRange(int from, int to) {
        int s = start(from);
        int e = ends[to];
        int bytes = e - s;
        int n = to - from + 1;
        System.arraycopy(blob, e, blob, s, blobLen - e);
        blobLen -= bytes;
        System.arraycopy(ends, to + 1, ends, from, count - to - 1);
        System.arraycopy(scores, to + 1, scores, from, count - to - 1);
        count -= n;
        for (int i = from; i < count; i++) {
            ends[i] -= bytes;
        }
        if (blob.length > 64 && blobLen < blob.length / 4) {
            blob = Arrays.copyOf(blob, Math.max(16, blobLen * 2));
        }
    }

    void updateScore(int i, double newScore) {
        byte[] m = member(i);
        removeRange(i, i);
        insert(m, 0, m.length, newScore);
    }

    int countBelow(ScoreRange r) {
        int i = 0;
        while (i < count && !r.aboveMin(scores[i])) {
            i++;
        }
        return i;
    }

    int countUpToMax(ScoreRange r) {
        int i = 0;
        while (i < count && r.belowMax(scores[i])) {
            i++;
        }
        return i;
    }

    int countBelow(LexRange r) {
        int i = 0;
        while (i < count && !r.aboveMin(blob, start(i), ends[i])) {
            i++;
        }
        return i;
    }

    int countUpToMax(LexRange r) {
        int i = 0;
        while (i < count && r.belowMax(blob, start(i), ends[i])) {
            i++;
        }
        return i;
    }

    /** Index of the last element not above the max, scanning from the tail (Redis's zzlLastInLexRange). */
    int lastUpToMax(LexRange r) {
        int i = count - 1;
        while (i >= 0 && !r.belowMax(blob, start(i), ends[i])) {
            i--;
        }
        return i;
    }

    long memoryUsage() {
        return 32 + ((12 + blob.length + 7) & ~7L) + ((12 + ends.length * 4L + 7) & ~7L) + 16 + scores.length * 8L;
    }

    ZListpack copy() {
        ZListpack c = new ZListpack(count, blobLen);
        System.arraycopy(blob, 0, c.blob, 0, blobLen);
        System.arraycopy(ends, 0, c.ends, 0, count);
        System.arraycopy(scores, 0, c.scores, 0, count);
        c.blobLen = blobLen;
        c.count = count;
        return c;
    }
}
