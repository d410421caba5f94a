package dev.spinel.store.types;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class HashValueTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static boolean set(HashValue h, String f, String v) {
        return h.set(b(f), 0, b(f).length, b(v));
    }

    @Test
    void listpackUntilEntryLimit() {
        HashValue h = new HashValue(CollectionSettings.DEFAULTS);
        for (int i = 0; i < 512; i++) {
            set(h, "f" + i, "v");
        }
        assertEquals("listpack", h.encoding());
        set(h, "f512", "v");
        assertEquals("hashtable", h.encoding());
        for (int i = 0; i <= 512; i++) {
            h.delete(b("f" + i), 0, b("f" + i).length);
        }
        assertEquals(0, h.size());
        set(h, "a", "b");
        assertEquals("hashtable", h.encoding(), "never converts back");
    }

    @Test
    void longValueOrFieldConverts() {
        HashValue h = new HashValue(CollectionSettings.DEFAULTS);
        set(h, "f", "x".repeat(64));
        assertEquals("listpack", h.encoding());
        set(h, "g", "x".repeat(65));
        assertEquals("hashtable", h.encoding());
        HashValue h2 = new HashValue(CollectionSettings.DEFAULTS);
        set(h2, "y".repeat(65), "v");
        assertEquals("hashtable", h2.encoding());
    }

    @Test
    void behavesLikeAMapInBothEncodingsAndScansEverything() {
        Random rnd = new Random(7);
        HashValue h = new HashValue(CollectionSettings.DEFAULTS);
        Map<String, String> model = new LinkedHashMap<>();
        for (int op = 0; op < 30_000; op++) {
            String f = "f" + rnd.nextInt(op < 15_000 ? 100 : 2000);
            switch (rnd.nextInt(3)) {
                case 0, 1 -> {
                    String v = "v" + rnd.nextInt(1000);
                    assertEquals(!model.containsKey(f), set(h, f, v));
                    model.put(f, v);
                }
                default -> assertEquals(model.remove(f) != null, h.delete(b(f), 0, b(f).length));
            }
            assertEquals(model.size(), h.size());
            if (op == 14_999) {
                assertEquals("listpack", h.encoding());
                Map<String, String> seen = new LinkedHashMap<>();
                h.forEach((k, ko, kl, v, vo, vl) -> seen.put(new String(k, ko, kl), new String(v, vo, vl)));
                assertEquals(String.join(",", model.keySet()), String.join(",", seen.keySet()), "insertion order");
            }
        }
        assertEquals("hashtable", h.encoding());
        for (Map.Entry<String, String> e : model.entrySet()) {
            assertEquals(e.getValue(), new String(h.get(b(e.getKey()), 0, b(e.getKey()).length)));
        }
        assertNull(h.get(b("absent"), 0, 6));
        Map<String, String> scanned = new HashMap<>();
        long cursor = 0;
        do {
            cursor = h.scan(cursor, 10, (k, ko, kl, v, vo, vl) -> scanned.put(new String(k, ko, kl), new String(v, vo, vl)));
        } while (cursor != 0);
        assertEquals(model, scanned);
        HashValue c = h.copy();
        set(h, "new-field", "x");
        assertEquals(model.size(), c.size());
    }
}
