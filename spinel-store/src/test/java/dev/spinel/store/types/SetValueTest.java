package dev.spinel.store.types;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Encodings and conversions of {@link SetValue}, checked against a {@code java.util.Set} model. */
class SetValueTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Set<String> members(SetValue s) {
        Set<String> out = new HashSet<>();
        for (int p = s.first(); p >= 0; p = s.next(p)) {
            assertTrue(out.add(new String(s.member(p), StandardCharsets.UTF_8)), "duplicate in iteration");
        }
        return out;
    }

    @Test
    void intsetWhileCanonicalIntegersAndSorted() {
        SetValue s = SetValue.createFor(b("5"), 0, 1);
        SetLimits limits = new SetLimits();
        for (String m : new String[] {"5", "-3", "9223372036854775807", "-9223372036854775808", "0", "5"}) {
            s.add(b(m), limits);
        }
        assertEquals("intset", s.encoding());
        assertEquals(5, s.size());
        StringBuilder order = new StringBuilder();
        for (int p = s.first(); p >= 0; p = s.next(p)) {
            order.append(new String(s.member(p), StandardCharsets.UTF_8)).append(',');
        }
        assertEquals("-9223372036854775808,-3,0,5,9223372036854775807,", order.toString());
        assertFalse(s.contains(b("05")));
        assertFalse(s.contains(b("+5")));
        assertTrue(s.contains(b("-3")));
    }

    @Test
    void nonCanonicalIntegersAndStringsConvert() {
        for (String m : new String[] {"05", "+1", "-0", " 1", "1.0", "9223372036854775808", "a", ""}) {
            SetValue s = SetValue.createFor(b("1"), 0, 1);
            s.add(b("1"), new SetLimits());
            s.add(b(m), new SetLimits());
            assertEquals("hashtable", s.encoding(), m);
            assertEquals(Set.of("1", m), members(s));
        }
        assertEquals("hashtable", SetValue.createFor(b("x"), 0, 1).encoding());
    }

    @Test
    void convertsPastTheEntryLimitAndNeverBack() {
        SetLimits limits = new SetLimits().setMaxIntsetEntries(3);
        SetValue s = SetValue.createIntset();
        s.add(b("1"), limits);
        s.add(b("2"), limits);
        s.add(b("3"), limits);
        assertEquals("intset", s.encoding());
        s.add(b("4"), limits);
        assertEquals("hashtable", s.encoding());
        s.remove(b("4"));
        s.remove(b("3"));
        assertEquals("hashtable", s.encoding());
        assertEquals(Set.of("1", "2"), members(s));
        SetValue zero = SetValue.createIntset();
        zero.add(b("1"), new SetLimits().setMaxIntsetEntries(0));
        assertEquals("hashtable", zero.encoding());
    }

    @Test
    void randomOperationsMatchModelAndCopyIsDeep() {
        SplittableRandom rnd = new SplittableRandom(7);
        SetLimits limits = new SetLimits().setMaxIntsetEntries(64);
        SetValue s = SetValue.createIntset();
        Set<String> model = new HashSet<>();
        for (int i = 0; i < 50_000; i++) {
            String m = rnd.nextInt(10) == 0 ? "m" + rnd.nextInt(300) : Integer.toString(rnd.nextInt(300) - 150);
            if (rnd.nextInt(3) == 0) {
                assertEquals(model.remove(m), s.remove(b(m)));
            } else {
                assertEquals(model.add(m), s.add(b(m), limits));
            }
            assertEquals(model.size(), s.size());
            if (i % 5000 == 0) {
                assertEquals(model, members(s));
            }
        }
        assertEquals(model, members(s));
        SetValue copy = s.copy();
        assertEquals(model, members(copy));
        copy.add(b("only-in-copy"), limits);
        assertFalse(s.contains(b("only-in-copy")));
        long mem = s.memoryUsage();
        assertTrue(mem > 0);
    }

    @Test
    void removeAtRandomPositionsDrainsTheSet() {
        SetValue s = SetValue.createFor(b("a"), 0, 1);
        Set<String> model = new TreeSet<>();
        for (int i = 0; i < 1000; i++) {
            s.add(b("k" + i), new SetLimits());
            model.add("k" + i);
        }
        Random rnd = new Random(3);
        while (s.size() > 0) {
            int p = s.randomPosition(rnd);
            String m = new String(s.member(p), StandardCharsets.UTF_8);
            assertTrue(model.remove(m));
            s.removeAt(p);
        }
        assertTrue(model.isEmpty());
    }

    @Test
    void hashtableScanReturnsEveryStableMemberDespiteResizes() {
        SetValue s = SetValue.createFor(b("a"), 0, 1);
        SetLimits limits = new SetLimits();
        for (int i = 0; i < 2000; i++) {
            s.add(b("stable" + i), limits);
        }
        Set<String> seen = new HashSet<>();
        long cursor = 0;
        int step = 0;
        do {
            cursor = s.scan(cursor, 10, m -> seen.add(new String(m, StandardCharsets.UTF_8)));
            // churn between calls: grow and shrink the table
            if (step % 3 == 0) {
                for (int i = 0; i < 50; i++) {
                    s.add(b("tmp" + step + "_" + i), limits);
                }
            } else {
                for (int i = 0; i < 50; i++) {
                    s.remove(b("tmp" + (step - step % 3) + "_" + i));
                }
            }
            step++;
        } while (cursor != 0);
        for (int i = 0; i < 2000; i++) {
            assertTrue(seen.contains("stable" + i), "missed stable" + i);
        }
        assertNotEquals(0, step);
    }
}
