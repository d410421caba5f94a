package dev.spinel.store.types;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The packed intset against a {@code TreeSet} model, across the 2/4/8-byte widths. */
class IntSetTest {
    @Test
    void widensOnDemandAndStaysSorted() {
        IntSet s = new IntSet(0);
        s.add(5);
        s.add(-7);
        assertEquals(2, s.width());
        s.add(40_000);
        assertEquals(4, s.width());
        s.add(Long.MIN_VALUE);
        assertEquals(8, s.width());
        s.remove(Long.MIN_VALUE);
        assertEquals(8, s.width(), "never narrows, as Redis");
        assertEquals(-7, s.get(0));
        assertEquals(5, s.get(1));
        assertEquals(40_000, s.get(2));
        assertFalse(s.contains(Long.MAX_VALUE));
    }

    @Test
    void randomOperationsMatchModel() {
        SplittableRandom rnd = new SplittableRandom(9);
        IntSet s = new IntSet(4);
        TreeSet<Long> model = new TreeSet<>();
        long[] scales = {100, 40_000, 3_000_000_000L, Long.MAX_VALUE};
        for (int i = 0; i < 40_000; i++) {
            long scale = scales[Math.min(3, i / 8000)];
            long v = scale == Long.MAX_VALUE ? rnd.nextLong() : rnd.nextLong(-scale, scale);
            if (rnd.nextInt(3) == 0 && !model.isEmpty()) {
                long victim = rnd.nextBoolean() ? model.first() : v;
                assertEquals(model.remove(victim), s.remove(victim));
            } else {
                assertEquals(model.add(v), s.add(v));
            }
            assertEquals(model.size(), s.size());
        }
        int i = 0;
        for (long v : model) {
            assertEquals(v, s.get(i++));
            assertTrue(s.contains(v));
        }
        IntSet c = s.copy();
        c.add(12345678901L);
        assertEquals(model.size(), s.size());
        assertTrue(s.memoryUsage() > 0);
    }
}
