package dev.spinel.server.commands.common;

import java.util.Comparator;

/**
 * Redis's pqsort (NetBSD's Bentley-McIlroy quicksort that skips partitions outside the ranks wanted),
 * used by the geo searches when COUNT keeps fewer results than were found. Reproduced step for step
 * because it is not stable: which of several equally distant points come first, and which make the
 * cut, depend on its exact swaps. Works on element indices where the C code works on byte addresses.
 * The algorithm is Bentley and McIlroy's ("Engineering a Sort Function", 1993) as in the BSD-licensed
 * qsort of NetBSD that Redis's pqsort.c adapts; this is a Java reimplementation of its steps.
 */
public final class PartialSort {
    private PartialSort() {
    }

    /** Sorts {@code x} enough that ranks {@code lrange..rrange} hold what a full sort would put there. */
    public static <T> void sort(T[] x, Comparator<? super T> cmp, int lrange, int rrange) {
        sort(x, 0, x.length, cmp, lrange, rrange);
    }

    private static <T> void sort(T[] x, int a, int n, Comparator<? super T> cmp, int lrange, int rrange) {
        while (true) {
            if (n < 7) {
                for (int pm = a + 1; pm < a + n; pm++) {
                    for (int pl = pm; pl > a && cmp.compare(x[pl - 1], x[pl]) > 0; pl--) {
                        swap(x, pl, pl - 1);
                    }
                }
                return;
            }
            int pm = a + n / 2;
            if (n > 7) {
                int pl = a;
                int pn = a + n - 1;
                if (n > 40) {
                    int d = n / 8;
                    pl = med3(x, pl, pl + d, pl + 2 * d, cmp);
                    pm = med3(x, pm - d, pm, pm + d, cmp);
                    pn = med3(x, pn - 2 * d, pn - d, pn, cmp);
                }
                pm = med3(x, pl, pm, pn, cmp);
            }
            swap(x, a, pm);
            int pa = a + 1;
            int pb = pa;
            int pc = a + n - 1;
            int pd = pc;
            while (true) {
                int c;
                while (pb <= pc && (c = cmp.compare(x[pb], x[a])) <= 0) {
                    if (c == 0) {
                        swap(x, pa, pb);
                        pa++;
                    }
                    pb++;
                }
                while (pb <= pc && (c = cmp.compare(x[pc], x[a])) >= 0) {
                    if (c == 0) {
                        swap(x, pc, pd);
                        pd--;
                    }
                    pc--;
                }
                if (pb > pc) {
                    break;
                }
                swap(x, pb, pc);
                pb++;
                pc--;
            }
            int pn = a + n;
            int r = Math.min(pa - a, pb - pa);
            vecswap(x, a, pb - r, r);
            r = Math.min(pd - pc, pn - pd - 1);
            vecswap(x, pb, pn - r, r);
            if ((r = pb - pa) > 1 && overlaps(a, r, lrange, rrange)) {
                sort(x, a, r, cmp, lrange, rrange);
            }
            if ((r = pd - pc) > 1) {
                a = pn - r; // iterate rather than recurse, as the C code does
                n = r;
                if (overlaps(a, n, lrange, rrange)) {
                    continue;
                }
            }
            return;
        }
    }

    /** Whether ranks [lrange, rrange] are not wholly before or wholly after elements [s, s+m). */
    private static boolean overlaps(int s, int m, int lrange, int rrange) {
        return !((lrange < s && rrange < s) || (lrange >= s + m && rrange >= s + m));
    }

    private static <T> int med3(T[] x, int a, int b, int c, Comparator<? super T> cmp) {
        return cmp.compare(x[a], x[b]) < 0
                ? (cmp.compare(x[b], x[c]) < 0 ? b : (cmp.compare(x[a], x[c]) < 0 ? c : a))
                : (cmp.compare(x[b], x[c]) > 0 ? b : (cmp.compare(x[a], x[c]) < 0 ? a : c));
    }

    private static <T> void swap(T[] x, int i, int j) {
        T t = x[i];
        x[i] = x[j];
        x[j] = t;
    }

    private static <T> void vecswap(T[] x, int i, int j, int n) {
        for (int k = 0; k < n; k++) {
            swap(x, i + k, j + k);
        }
    }
}
