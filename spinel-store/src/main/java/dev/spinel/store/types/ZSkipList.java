package dev.spinel.store.types;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * Redis's skip list for sorted sets: nodes ordered by (score, member bytes), each level link carrying
 * its span so that rank queries and rank-indexed access are O(log n). Ranks here are 0-based.
 *
 * <p>Not thread-safe: guarded by the lock of the segment holding the key.
 */
final class ZSkipList {
    static final int MAX_LEVEL = 32;

    static final class Node {
        final byte[] member;
        double score;
        Node backward;
        final Node[] forward;
        final int[] span;

        Node(int level, double score, byte[] member) {
            this.member = member;
            this.score = score;
            this.forward = new Node[level];
            this.span = new int[level];
        }

        Node next() {
            return forward[0];
        }

        Node prev() {
            return backward;
        }
    }

    private final Node header = new Node(MAX_LEVEL, 0, null);
    private Node tail;
    private int length;
    private int level = 1;
    private final Node[] update = new Node[MAX_LEVEL];
    private final int[] rankBuf = new int[MAX_LEVEL];

    int length() {
        return length;
    }

    Node first() {
        return header.forward[0];
    }

    Node last() {
        return tail;
    }

    private static int randomLevel() {
        int lvl = 1;
        ThreadLocalRandom r = ThreadLocalRandom.current();
        while (lvl < MAX_LEVEL && (r.nextInt() & 0xFFFF) < 0xFFFF / 4) {
            lvl++;
        }
        return lvl;
    }

    private static boolean less(Node n, double score, byte[] m) {
        return n.score < score || (n.score == score && Arrays.compareUnsigned(n.member, m) < 0);
    }

    /** Inserts a member the caller knows is absent; returns its node. */
    Node insert(double score, byte[] member) {
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            rankBuf[i] = i == level - 1 ? 0 : rankBuf[i + 1];
            while (x.forward[i] != null && less(x.forward[i], score, member)) {
                rankBuf[i] += x.span[i];
                x = x.forward[i];
            }
            update[i] = x;
        }
        int lvl = randomLevel();
        if (lvl > level) {
            for (int i = level; i < lvl; i++) {
                rankBuf[i] = 0;
                update[i] = header;
                update[i].span[i] = length;
            }
            level = lvl;
        }
        x = new Node(lvl, score, member);
        for (int i = 0; i < lvl; i++) {
            x.forward[i] = update[i].forward[i];
            update[i].forward[i] = x;
            x.span[i] = update[i].span[i] - (rankBuf[0] - rankBuf[i]);
            update[i].span[i] = (rankBuf[0] - rankBuf[i]) + 1;
        }
        for (int i = lvl; i < level; i++) {
            update[i].span[i]++;
        }
        x.backward = update[0] == header ? null : update[0];
        if (x.forward[0] != null) {
            x.forward[0].backward = x;
        } else {
            tail = x;
        }
        length++;
        Arrays.fill(update, null);
        return x;
    }

    private void unlink(Node x) {
        for (int i = 0; i < level; i++) {
            if (update[i].forward[i] == x) {
                update[i].span[i] += x.span[i] - 1;
                update[i].forward[i] = x.forward[i];
            } else {
                update[i].span[i] -= 1;
            }
        }
        if (x.forward[0] != null) {
            x.forward[0].backward = x.backward;
        } else {
            tail = x.backward;
        }
        while (level > 1 && header.forward[level - 1] == null) {
            level--;
        }
        length--;
    }

    /** Deletes the node with this score and member; returns false if absent. */
    boolean delete(double score, byte[] member) {
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            while (x.forward[i] != null && less(x.forward[i], score, member)) {
                x = x.forward[i];
            }
            update[i] = x;
        }
        x = x.forward[0];
        boolean found = x != null && x.score == score && Arrays.equals(x.member, member);
        if (found) {
            unlink(x);
        }
        Arrays.fill(update, null);
        return found;
    }

    /** 0-based rank of (score, member), which must be present; -1 if it is not. */
    long rank(double score, byte[] member) {
        long rank = 0;
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            while (x.forward[i] != null && (less(x.forward[i], score, member)
                    || (x.forward[i].score == score && Arrays.equals(x.forward[i].member, member)))) {
                rank += x.span[i];
                x = x.forward[i];
            }
            if (x != header && x.score == score && Arrays.equals(x.member, member)) {
                return rank - 1;
            }
        }
        return -1;
    }

    /** The node at 0-based rank, or null when out of range. */
    Node byRank(long rank) {
        if (rank < 0 || rank >= length) {
            return null;
        }
        long target = rank + 1;
        long traversed = 0;
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            while (x.forward[i] != null && traversed + x.span[i] <= target) {
                traversed += x.span[i];
                x = x.forward[i];
            }
            if (traversed == target) {
                return x;
            }
        }
        return null;
    }

    /** 0-based rank of the first element not below the range's min (may be {@code length}). */
    long countBelow(ScoreRange r) {
        long rank = 0;
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            while (x.forward[i] != null && !r.aboveMin(x.forward[i].score)) {
                rank += x.span[i];
                x = x.forward[i];
            }
        }
        return rank;
    }

    /** Number of elements at or below the range's max. */
    long countUpToMax(ScoreRange r) {
        long rank = 0;
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            while (x.forward[i] != null && r.belowMax(x.forward[i].score)) {
                rank += x.span[i];
                x = x.forward[i];
            }
        }
        return rank;
    }

    long countBelow(LexRange r) {
        long rank = 0;
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            while (x.forward[i] != null && !r.aboveMin(x.forward[i].member)) {
                rank += x.span[i];
                x = x.forward[i];
            }
        }
        return rank;
    }

    long countUpToMax(LexRange r) {
        long rank = 0;
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            while (x.forward[i] != null && r.belowMax(x.forward[i].member)) {
                rank += x.span[i];
                x = x.forward[i];
            }
        }
        return rank;
    }

    /** Deletes the nodes of 0-based ranks [start, end], calling back for each. */
    void deleteRankRange(long start, long end, Consumer<Node> removed) {
        long traversed = 0;
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            while (x.forward[i] != null && traversed + x.span[i] < start + 1) {
                traversed += x.span[i];
                x = x.forward[i];
            }
            update[i] = x;
        }
        traversed++;
        x = x.forward[0];
        while (x != null && traversed <= end + 1) {
            Node next = x.forward[0];
            unlink(x);
            removed.accept(x);
            traversed++;
            x = next;
        }
        Arrays.fill(update, null);
    }
}
