package dev.spinel.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Heavy churn checked against a model: sets (whole key or a slice of a larger buffer), overwrites with values of
 * other sizes, deletes, expiries set, changed and removed, lazy and active expiry, keys on both sides of the
 * inline limit (with zero and 0xff bytes), growth and shrinking of the tables, SCANs across resizes, and a
 * point-in-time capture armed in the middle. After every round the store's entries, counters and accounted
 * memory equal the model's; the capture equals the model at the moment it was armed.
 */
class KeyspaceChurnTest {
    private record Item(byte[] value, long expireAt) {
    }

    private final Random rnd = new Random(7);
    private final Keyspace ks = new Keyspace(1);
    private final Database db = ks.db(0);
    /** Physical content: what the store holds, expired or not; keys leave it when the store says they expired. */
    private final Map<String, Item> model = new HashMap<>();
    private long now = 1_000_000;

    KeyspaceChurnTest() {
        ks.listener(new KeyspaceListener() {
            @Override
            public void expired(Database d, byte[] key) {
                Item it = model.remove(s(key));
                assertNotNull(it, "expired a key the model lacks");
                assertTrue(it.expireAt >= 0 && it.expireAt <= now, "expired a live key");
            }
        });
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    private byte[] key() {
        int pick = rnd.nextInt(4000);
        if (pick % 7 == 0) { // a shared prefix of 16 to 24 bytes, the keys differing only in their last 3 bytes
            String k = "shared-prefix-of-all-the-keys".substring(0, 16 + (pick / 7) % 9) + String.format("%03d", pick / 63);
            return k.getBytes(StandardCharsets.ISO_8859_1);
        }
        int len = switch (pick % 5) {
            case 0 -> pick % 8;
            case 1 -> 14;
            case 2 -> 18 + pick % 11; // across both inline limits (19 and 27 bytes)
            case 3 -> 16;
            default -> 20 + pick % 30;
        };
        byte[] k = new byte[len];
        for (int i = 0; i < len; i++) {
            k[i] = (byte) (pick * 31 + i * 7); // deterministic per pick: keys repeat
        }
        if (len > 2 && pick % 3 == 0) {
            k[len - 1] = 0;
            k[0] = (byte) 0xff;
        }
        return k;
    }

    private byte[] value() {
        int len = switch (rnd.nextInt(4)) {
            case 0 -> rnd.nextInt(4);
            case 1 -> 32;
            case 2 -> rnd.nextInt(60); // across the limit of a string held in its entry (48 bytes)
            default -> rnd.nextInt(3000);
        };
        byte[] v = new byte[len];
        rnd.nextBytes(v);
        return v;
    }

    private long expiry() {
        return switch (rnd.nextInt(4)) {
            case 0 -> now + 1 + rnd.nextInt(5000);
            case 1 -> now - rnd.nextInt(10); // already past: a later read or the active cycle removes it
            default -> -1;
        };
    }

    private void step() {
        byte[] k = key();
        int h = KeyHash.hash(k);
        Segment seg = db.segment(h);
        seg.lock();
        try {
            switch (rnd.nextInt(10)) {
                case 0, 1 -> { // SET-like: lookup with lazy expiry, then insert or overwrite
                    byte[] v = value();
                    long at = expiry();
                    Entry e = seg.get(k, 0, k.length, h, now);
                    if (e == null) {
                        byte[] buf = new byte[k.length + 9];
                        rnd.nextBytes(buf);
                        System.arraycopy(k, 0, buf, 5, k.length);
                        seg.insert(buf, 5, k.length, h, v, at);
                    } else {
                        e = seg.replaceValue(e, v);
                        seg.setExpire(e, at);
                    }
                    model.put(s(k), new Item(v, at));
                }
                case 2 -> { // put (loader path) whatever was there
                    byte[] v = value();
                    long at = expiry();
                    seg.put(k, h, v, at);
                    model.put(s(k), new Item(v, at));
                }
                case 3 -> { // overwrite keeping the time to live
                    Entry e = seg.get(k, 0, k.length, h, now);
                    if (e != null) {
                        byte[] v = value();
                        e = seg.replaceValue(e, v);
                        model.put(s(k), new Item(v, e.expireAt()));
                    }
                }
                case 4, 5 -> { // delete
                    boolean had = model.containsKey(s(k));
                    assertEquals(had, seg.remove(k, 0, k.length, h));
                    model.remove(s(k));
                }
                case 6 -> { // EXPIRE / PERSIST
                    Entry e = seg.get(k, 0, k.length, h, now);
                    if (e != null) {
                        long at = rnd.nextBoolean() ? now + 1 + rnd.nextInt(3000) : -1;
                        Entry n = seg.setExpire(e, at);
                        assertArrayEquals(k, n.key());
                        model.put(s(k), new Item((byte[]) n.value(), at));
                    }
                }
                default -> { // GET
                    Entry e = seg.get(k, 0, k.length, h, now);
                    Item it = model.get(s(k));
                    if (e == null) {
                        assertNull(it);
                    } else {
                        assertArrayEquals(it.value, (byte[]) e.value());
                        assertEquals(it.expireAt, e.expireAt());
                    }
                }
            }
        } finally {
            seg.unlock();
        }
    }

    /** The store's physical content, counters and accounted memory equal the model's. */
    private void verify() {
        Map<String, Item> seen = new HashMap<>();
        long keys = 0;
        for (int i = 0; i < Database.SEGMENTS; i++) {
            Segment seg = db.segmentAt(i);
            seg.lock();
            try {
                long[] mem = {0};
                int[] vol = {0};
                seg.forEach(e -> {
                    byte[] k = e.key();
                    assertEquals(k.length <= InlineKeyEntry.MAX_LENGTH, e instanceof InlineKeyEntry);
                    assertEquals(e.keyHash(), KeyHash.hash(k));
                    assertNull(seen.put(s(k), new Item((byte[]) e.value(), e.expireAt())), "key twice");
                    mem[0] += Segment.SLOT_OVERHEAD + e.footprint() + e.valueFootprint();
                    if (e.expireAt() >= 0) {
                        vol[0]++;
                    }
                });
                assertEquals(mem[0], seg.memory(), "accounted memory of segment " + i);
                assertEquals(vol[0], seg.volatileCount());
                keys += seg.size();
            } finally {
                seg.unlock();
            }
        }
        assertEquals(model.size(), keys);
        assertEquals(model.keySet(), seen.keySet());
        model.forEach((k, it) -> {
            Item got = seen.get(k);
            assertArrayEquals(it.value, got.value, k);
            assertEquals(it.expireAt, got.expireAt, k);
        });
    }

    /**
     * Records every entry a capture copies, as it was when the capture was armed. As the RDB writer does, it keeps
     * {@link Entry#storedValue()} (for a string held in its entry, the entry itself) and reads the bytes only when
     * checked, rounds of churn later: an entry kept that way must never change.
     */
    private static final class Capture implements SegmentCapture {
        final Map<String, Object> stored = new HashMap<>();
        final Map<String, Long> expiry = new HashMap<>();

        @Override
        public void capture(Segment segment, int fromBucket, int toBucket) {
            segment.forEachInBuckets(fromBucket, toBucket, e -> {
                assertNull(stored.put(s(e.key()), e.storedValue()), "captured twice");
                expiry.put(s(e.key()), e.expireAt());
            });
        }

        byte[] value(String key) {
            Object v = stored.get(key);
            return v instanceof Entry e ? (byte[]) e.value() : (byte[]) v;
        }
    }

    @Test
    @Timeout(60)
    void churnMatchesTheModelWithACaptureInTheMiddle() {
        Capture capture = null;
        Map<String, Item> atArm = null;
        for (int round = 0; round < 40; round++) {
            int steps = round < 20 ? 4000 : 1500; // grow, then mostly shrink through deletes and expiry
            for (int i = 0; i < steps; i++) {
                step();
            }
            now += rnd.nextInt(400);
            ks.activeExpireCycle(now, 1 + rnd.nextInt(64));
            if (round == 12) {
                capture = new Capture();
                ks.lockAll();
                try {
                    for (int i = 0; i < Database.SEGMENTS; i++) {
                        db.segmentAt(i).armCapture(capture);
                    }
                } finally {
                    ks.unlockAll();
                }
                atArm = new HashMap<>(model);
            }
            if (round == 16) {
                for (int i = 0; i < Database.SEGMENTS; i++) {
                    Segment seg = db.segmentAt(i);
                    seg.lock();
                    try {
                        seg.capturePending();
                    } finally {
                        seg.unlock();
                    }
                }
                assertEquals(atArm.keySet(), capture.stored.keySet());
                for (Map.Entry<String, Item> e : atArm.entrySet()) {
                    assertArrayEquals(e.getValue().value, capture.value(e.getKey()));
                    assertEquals(e.getValue().expireAt, capture.expiry.get(e.getKey()));
                }
            }
            verify();
        }
        // the copy still reads as armed after 24 more rounds of churn (the entries it keeps never change)
        for (Map.Entry<String, Item> e : atArm.entrySet()) {
            assertArrayEquals(e.getValue().value, capture.value(e.getKey()), e.getKey());
        }
        // drain: everything expires or is deleted, and every counter returns to zero
        now += 1_000_000;
        while (ks.activeExpireCycle(now, 1024) > 0) {
            now++;
        }
        for (String k : new HashSet<>(model.keySet())) {
            byte[] b = k.getBytes(StandardCharsets.ISO_8859_1);
            int h = KeyHash.hash(b);
            Segment seg = db.segment(h);
            seg.lock();
            try {
                assertTrue(seg.remove(b, 0, b.length, h));
            } finally {
                seg.unlock();
            }
            model.remove(k);
        }
        verify();
        assertEquals(0, db.memory());
    }

    @Test
    @Timeout(60)
    void scanReturnsEveryKeyPresentThroughoutWhileTablesResize() {
        Set<String> stable = new HashSet<>();
        for (int i = 0; i < 3000; i++) {
            byte[] k = ("stable:" + i).getBytes(StandardCharsets.ISO_8859_1);
            int h = KeyHash.hash(k);
            Segment seg = db.segment(h);
            seg.lock();
            try {
                seg.put(k, h, new byte[]{1}, -1);
            } finally {
                seg.unlock();
            }
            stable.add(s(k));
        }
        Set<String> returned = new HashSet<>();
        long cursor = 0;
        int call = 0;
        do {
            cursor = db.scan(cursor, 10, e -> returned.add(s(e.key())));
            // between calls, grow (first half) then shrink (second half) the tables with other keys
            for (int i = 0; i < 40; i++) {
                byte[] k = ("churn:" + ((call < 250 ? call : call - 250) * 40 + i)).getBytes(StandardCharsets.ISO_8859_1);
                int h = KeyHash.hash(k);
                Segment seg = db.segment(h);
                seg.lock();
                try {
                    if (call < 250) {
                        seg.put(k, h, Arrays.copyOf(k, 3), -1);
                    } else {
                        seg.remove(k, 0, k.length, h);
                    }
                } finally {
                    seg.unlock();
                }
            }
            call++;
        } while (cursor != 0);
        assertTrue(returned.containsAll(stable), "SCAN missed a key present for the whole iteration");
    }
}
