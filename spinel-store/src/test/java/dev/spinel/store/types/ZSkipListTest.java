package dev.spinel.store.types;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The skip list's spans: after random inserts, deletes and rank-range deletes, every rank and every
 * rank lookup agrees with a naive sorted list, and backward links mirror forward links.
 */
class ZSkipListTest {
    private static int cmp(double s1, byte[] m1, double s2, byte[] m2) {
        int c = Double.compare(s1, s2);
        return c != 0 ? c : Arrays.compareUnsigned(m1, m2);
    }

    private static int insertionPoint(List<ZSkipList.Node> model, double score, byte[] m) {
        int lo = 0;
        int hi = model.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            ZSkipList.Node n = model.get(mid);
            if (cmp(n.score, n.member, score, m) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    @Test
    void ranksAndRankAccessMatchNaiveList() {
        SplittableRandom rnd = new SplittableRandom(42);
        ZSkipList l = new ZSkipList();
        List<ZSkipList.Node> model = new ArrayList<>();
        int next = 0;
        for (int i = 0; i < 30_000; i++) {
            int op = rnd.nextInt(10);
            if (op < 6 || model.isEmpty()) {
                double score = rnd.nextInt(1000);
                byte[] m = ("m" + next++).getBytes(StandardCharsets.US_ASCII);
                ZSkipList.Node n = l.insert(score, m);
                model.add(insertionPoint(model, score, m), n);
            } else if (op < 9) {
                ZSkipList.Node victim = model.remove(rnd.nextInt(model.size()));
                assertTrue(l.delete(victim.score, victim.member));
            } else {
                int start = rnd.nextInt(model.size());
                int end = Math.min(model.size() - 1, start + rnd.nextInt(5));
                List<ZSkipList.Node> removed = new ArrayList<>();
                l.deleteRankRange(start, end, removed::add);
                assertEquals(model.subList(start, end + 1), removed);
                model.subList(start, end + 1).clear();
            }
            assertEquals(model.size(), l.length());
            if (i % 1000 == 0) {
                check(l, model);
            }
        }
        check(l, model);
    }

    private static void check(ZSkipList l, List<ZSkipList.Node> model) {
        ZSkipList.Node prev = null;
        ZSkipList.Node x = l.first();
        for (int r = 0; r < model.size(); r++) {
            ZSkipList.Node n = model.get(r);
            assertSame(n, x);
            assertSame(prev, x.prev());
            assertEquals(r, l.rank(n.score, n.member));
            assertSame(n, l.byRank(r));
            prev = x;
            x = x.next();
        }
        assertNull(x);
        assertSame(prev, l.last());
        assertNull(l.byRank(model.size()));
        assertNull(l.byRank(-1));
        assertEquals(-1, l.rank(-1, new byte[] {'z'}));
    }
}
