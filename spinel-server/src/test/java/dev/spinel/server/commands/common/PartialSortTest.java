package dev.spinel.server.commands.common;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * PartialSort puts into ranks [l, r] what a full sort would (by comparison; which of equal elements
 * land there is pqsort's business, checked against Redis by geo.redis), for sizes around its
 * insertion-sort (7) and ninther (40) thresholds and with many duplicates.
 */
class PartialSortTest {
    @Test
    void ranksInRangeMatchAFullSort() {
        Random r = new Random(42);
        for (int iter = 0; iter < 3000; iter++) {
            int n = 1 + r.nextInt(r.nextBoolean() ? 12 : 200);
            Integer[] a = new Integer[n];
            int distinct = 1 + r.nextInt(n);
            for (int i = 0; i < n; i++) {
                a[i] = r.nextInt(distinct);
            }
            int l = r.nextInt(n);
            int h = l + r.nextInt(n - l);
            Comparator<Integer> cmp = r.nextBoolean() ? Comparator.naturalOrder() : Comparator.reverseOrder();
            Integer[] full = a.clone();
            Arrays.sort(full, cmp);
            Integer[] part = a.clone();
            PartialSort.sort(part, cmp, l, h);
            for (int k = l; k <= h; k++) {
                assertEquals(full[k], part[k], "n=" + n + " range " + l + ".." + h + " rank " + k);
            }
            Integer[] sortedPart = part.clone();
            Arrays.sort(sortedPart, cmp);
            assertEquals(Arrays.asList(full), Arrays.asList(sortedPart), "a permutation");
        }
    }
}
