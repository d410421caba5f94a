package dev.spinel.store.types;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ZSetValue} in both encodings against a naive sorted model: ranks, rank access, score and lex
 * range boundaries, range removal, and the listpack/skiplist conversions.
 */
class ZSetValueTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** One model element; the model orders by score then member bytes, as Redis. */
    private record El(double score, String member) {
    }

    private static List<El> sorted(TreeMap<String, Double> model) {
        List<El> l = new ArrayList<>();
        model.forEach((m, s) -> l.add(new El(s, m)));
        l.sort((x, y) -> {
            int c = Double.compare(x.score, y.score);
            if (x.score == y.score) {
                c = 0;
            }
            return c != 0 ? c : Arrays.compareUnsigned(b(x.member), b(y.member));
        });
        return l;
    }

    private static void assertSame(TreeMap<String, Double> model, ZSetValue z) {
        List<El> expect = sorted(model);
        assertEquals(expect.size(), z.size());
        ZSetValue.Cursor c = z.cursor(0);
        for (int i = 0; i < expect.size(); i++) {
            assertTrue(c.valid());
            assertEquals(expect.get(i).member, new String(c.member(), StandardCharsets.UTF_8));
            assertEquals(expect.get(i).score, c.score());
            c.next();
        }
        assertFalse(c.valid());
        for (int i = 0; i < expect.size(); i++) {
            byte[] m = b(expect.get(i).member);
            assertEquals(i, z.rank(m, 0, m.length, false));
            assertEquals(expect.size() - 1 - i, z.rank(m, 0, m.length, true));
            assertEquals(expect.get(i).member, new String(z.cursor(i).member(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void modelCheckInBothEncodings() {
        for (long limit : new long[] {0, 8, 1_000_000}) {
            SetLimits limits = new SetLimits().zsetMaxListpackEntries(limit);
            ZSetValue z = limit == 0 ? ZSetValue.createSkiplist() : ZSetValue.createListpack();
            TreeMap<String, Double> model = new TreeMap<>();
            SplittableRandom rnd = new SplittableRandom(11 + limit);
            for (int i = 0; i < 20_000; i++) {
                String m = "m" + rnd.nextInt(200);
                double score = rnd.nextInt(8) == 0 ? rnd.nextInt(3) : rnd.nextInt(100) / 4.0;
                int op = rnd.nextInt(10);
                byte[] mb = b(m);
                if (op < 5) {
                    if (model.containsKey(m)) {
                        z.updateScore(mb, 0, mb.length, score);
                    } else {
                        z.insert(mb, score, limits);
                    }
                    model.put(m, score);
                } else if (op < 8) {
                    assertEquals(model.remove(m) != null, z.remove(mb));
                } else if (op == 8) {
                    double got = z.score(mb, 0, mb.length);
                    Double want = model.get(m);
                    assertEquals(want == null ? Double.NaN : want, got);
                } else if (z.size() > 0) {
                    long start = rnd.nextLong(z.size());
                    long end = start + rnd.nextLong(3);
                    end = Math.min(end, z.size() - 1);
                    List<El> l = sorted(model);
                    for (long r = start; r <= end; r++) {
                        model.remove(l.get((int) r).member);
                    }
                    assertEquals(end - start + 1, z.removeRanks(start, end));
                }
                if (i % 997 == 0) {
                    assertSame(model, z);
                }
            }
            assertSame(model, z);
            assertSame(model, z.copy());
        }
    }

    @Test
    void scoreRangesMatchModel() {
        SplittableRandom rnd = new SplittableRandom(5);
        for (int enc = 0; enc < 2; enc++) {
            ZSetValue z = enc == 0 ? ZSetValue.createListpack() : ZSetValue.createSkiplist();
            SetLimits limits = new SetLimits().zsetMaxListpackEntries(1_000_000);
            TreeMap<String, Double> model = new TreeMap<>();
            for (int i = 0; i < 300; i++) {
                String m = "k" + i;
                double s = rnd.nextInt(40) / 2.0;
                z.insert(b(m), s, limits);
                model.put(m, s);
            }
            List<El> l = sorted(model);
            for (int t = 0; t < 2000; t++) {
                double min = rnd.nextInt(44) / 2.0 - 1;
                double max = rnd.nextInt(44) / 2.0 - 1;
                ScoreRange r = new ScoreRange(min, rnd.nextBoolean(), max, rnd.nextBoolean());
                long below = l.stream().filter(e -> !r.aboveMin(e.score)).count();
                long upTo = l.stream().filter(e -> r.belowMax(e.score)).count();
                assertEquals(below, z.countBelow(r));
                assertEquals(upTo, z.countUpToMax(r));
            }
        }
    }

    @Test
    void lexRangesMatchModel() {
        for (int enc = 0; enc < 2; enc++) {
            ZSetValue z = enc == 0 ? ZSetValue.createListpack() : ZSetValue.createSkiplist();
            SetLimits limits = new SetLimits().zsetMaxListpackEntries(1_000_000);
            List<String> members = new ArrayList<>();
            for (char c = 'a'; c <= 'z'; c++) {
                members.add(String.valueOf(c));
                members.add(c + "" + c);
            }
            members.add("\u00e9"); // bytes above 0x7f sort last (unsigned)
            for (String m : members) {
                z.insert(b(m), 0, limits);
            }
            members.sort((x, y) -> Arrays.compareUnsigned(b(x), b(y)));
            LexRange r = new LexRange(b("b"), true, 0, b("d"), false, 0);
            long below = members.stream().filter(m -> !r.aboveMin(b(m))).count();
            assertEquals(below, z.countBelow(r));
            assertEquals(members.stream().filter(m -> r.belowMax(b(m))).count(), z.countUpToMax(r));
            assertEquals("bb", new String(z.cursor(below).member(), StandardCharsets.UTF_8));
            LexRange all = new LexRange(null, false, LexRange.NEG, null, false, LexRange.POS);
            assertEquals(0, z.countBelow(all));
            assertEquals(members.size(), z.countUpToMax(all));
            assertEquals("\u00e9", new String(z.cursor(members.size() - 1).member(), StandardCharsets.UTF_8));
            assertTrue(new LexRange(null, false, LexRange.POS, null, false, LexRange.NEG).isEmpty());
        }
    }

    @Test
    void listpackConvertsOnCountOrMemberLengthAndBackWhenAsked() {
        SetLimits limits = new SetLimits().zsetMaxListpackEntries(3).zsetMaxListpackValue(5);
        ZSetValue z = ZSetValue.createFor(1, limits);
        assertEquals("listpack", z.encoding());
        z.insert(b("a"), 1, limits);
        z.insert(b("b"), 2, limits);
        z.insert(b("c"), 3, limits);
        assertEquals("listpack", z.encoding());
        z.insert(b("d"), 4, limits);
        assertEquals("skiplist", z.encoding());
        z.remove(b("d"));
        assertEquals("skiplist", z.encoding());
        z.convertToListpackIfNeeded(limits);
        assertEquals("listpack", z.encoding());
        z.insert(b("longer"), 0, limits);
        assertEquals("skiplist", z.encoding());
        z.convertToListpackIfNeeded(limits);
        assertEquals("skiplist", z.encoding(), "a member over the value limit keeps the skip list");
        assertEquals("skiplist", ZSetValue.createFor(6, limits).encoding());
        assertEquals("skiplist", ZSetValue.createFor(1, new SetLimits().zsetMaxListpackEntries(0)).encoding());
    }

    @Test
    void negativeZeroIsNormalizedOnlyInListpacks() {
        SetLimits limits = new SetLimits();
        ZSetValue lp = ZSetValue.createListpack();
        lp.insert(b("a"), -0.0, limits);
        assertEquals(0, Double.doubleToRawLongBits(lp.score(b("a"))));
        ZSetValue sl = ZSetValue.createSkiplist();
        sl.insert(b("a"), -0.0, limits);
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(sl.score(b("a"))));
    }

    @Test
    void memoryUsageFollowsContent() {
        SetLimits limits = new SetLimits();
        ZSetValue z = ZSetValue.createListpack();
        long empty = z.memoryUsage();
        for (int i = 0; i < 100; i++) {
            z.insert(b("member-" + i), i, limits);
        }
        long full = z.memoryUsage();
        assertTrue(full > empty + 100 * 16, "listpack grows with members");
        z.convertToSkiplist();
        assertTrue(z.memoryUsage() > full, "skiplist costs more than listpack");
        z.removeRanks(0, 99);
        assertEquals(0, z.size());
    }
}
