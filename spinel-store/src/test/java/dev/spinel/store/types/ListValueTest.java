package dev.spinel.store.types;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ListValueTest {
    private static CollectionSettings fill(long f) {
        return new CollectionSettings() {
            public long listMaxListpackSize() {
                return f;
            }

            public long hashMaxListpackEntries() {
                return 512;
            }

            public long hashMaxListpackValue() {
                return 64;
            }
        };
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void compactUntilTheNodeByteLimitThenLarge() {
        ListValue l = new ListValue(CollectionSettings.DEFAULTS);
        assertEquals("quicklist", l.encoding()); // Redis 7.0 reports quicklist for every list
        byte[] v = new byte[100];
        for (int i = 0; i < 80; i++) {
            l.push(false, v);
        }
        assertTrue(l.compact(), "8000 bytes fit the 8 KiB node");
        for (int i = 0; i < 2; i++) {
            l.push(false, v);
        }
        assertFalse(l.compact(), "past 8 KiB the list converts");
        while (l.length() > 0) {
            l.pop(true);
        }
        assertFalse(l.compact(), "Redis 7.0 never converts back");
    }

    @Test
    void positiveFillCountsEntries() {
        ListValue l = new ListValue(fill(3));
        l.push(false, b("a"));
        l.push(false, b("b"));
        l.push(false, b("c"));
        assertTrue(l.compact());
        l.push(false, b("d"));
        assertFalse(l.compact());
    }

    @Test
    void bothLayoutsBehaveLikeAnArrayList() {
        for (long f : new long[] {-2, 5, 1000}) {
            Random rnd = new Random(42 + f);
            ListValue l = new ListValue(fill(f));
            List<String> model = new ArrayList<>();
            for (int op = 0; op < 20_000; op++) {
                String v = "v" + rnd.nextInt(50) + "x".repeat(rnd.nextInt(3) == 0 ? rnd.nextInt(200) : 0);
                int n = model.size();
                switch (rnd.nextInt(9)) {
                    case 0 -> { l.push(true, b(v)); model.addFirst(v); }
                    case 1 -> { l.push(false, b(v)); model.addLast(v); }
                    case 2 -> { if (n > 0) { assertEquals(model.removeFirst(), new String(l.pop(true))); } }
                    case 3 -> { if (n > 0) { assertEquals(model.removeLast(), new String(l.pop(false))); } }
                    case 4 -> { int i = rnd.nextInt(n + 1); l.insert(i, b(v), 0, b(v).length); model.add(i, v); }
                    case 5 -> { if (n > 0) { int i = rnd.nextInt(n); l.set(i, b(v), 0, b(v).length); model.set(i, v); } }
                    case 6 -> { if (n > 0) { int i = rnd.nextInt(n); assertEquals(model.remove(i), new String(l.removeAt(i))); } }
                    case 7 -> {
                        if (n > 10 && rnd.nextInt(20) == 0) {
                            int s = rnd.nextInt(n), e = s + rnd.nextInt(n);
                            l.trim(s, e);
                            List<String> sub = new ArrayList<>(model.subList(s, Math.min(e, n - 1) + 1));
                            model.clear();
                            model.addAll(sub);
                        }
                    }
                    default -> {
                        String t = "v" + rnd.nextInt(50);
                        long lim = rnd.nextInt(3);
                        boolean tail = rnd.nextBoolean();
                        long removed = l.removeMatching(b(t), 0, b(t).length, lim, tail);
                        long expect = 0;
                        if (!tail) {
                            for (int i = 0; i < model.size() && (lim == 0 || expect < lim); ) {
                                if (model.get(i).equals(t)) { model.remove(i); expect++; } else { i++; }
                            }
                        } else {
                            for (int i = model.size() - 1; i >= 0 && (lim == 0 || expect < lim); i--) {
                                if (model.get(i).equals(t)) { model.remove(i); expect++; }
                            }
                        }
                        assertEquals(expect, removed);
                    }
                }
                assertEquals(model.size(), l.length());
            }
            List<String> fwd = new ArrayList<>();
            l.forEach(0, l.length() - 1, false, (buf, off, len) -> fwd.add(new String(buf, off, len)));
            assertEquals(model, fwd);
            List<String> back = new ArrayList<>();
            l.forEach(0, l.length() - 1, true, (buf, off, len) -> back.add(new String(buf, off, len)));
            assertEquals(model.reversed(), back);
            ListValue c = l.copy();
            l.push(true, b("only-in-original"));
            assertEquals(model.size(), c.length());
            for (int i = 0; i < model.size(); i++) {
                assertArrayEquals(b(model.get(i)), c.get(i));
            }
        }
    }
}
