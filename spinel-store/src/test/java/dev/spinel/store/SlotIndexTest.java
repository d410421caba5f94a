package dev.spinel.store;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-slot key index of cluster mode follows every way a key enters or leaves a segment; a keyspace
 * built without it has none and uses plain segments (so standalone writes run no index code).
 */
class SlotIndexTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Set<String> keys(SlotIndex idx, int slot) {
        Set<String> out = new HashSet<>();
        for (byte[] k : idx.keys(slot, 1000)) {
            out.add(new String(k, StandardCharsets.UTF_8));
        }
        return out;
    }

    @Test
    void standaloneKeyspaceHasNoIndex() {
        Keyspace ks = new Keyspace(2);
        assertNull(ks.db(0).slotIndex());
        assertSame(Segment.class, ks.db(0).segmentAt(0).getClass());
        Keyspace cluster = new Keyspace(2, true);
        assertNull(cluster.db(1).slotIndex());
        assertSame(SlotIndexedSegment.class, cluster.db(0).segmentAt(0).getClass());
    }

    @Test
    void indexFollowsInsertsRemovalsAndClear() {
        Database db = new Keyspace(1, true).db(0);
        SlotIndex idx = db.slotIndex();
        int slot = KeySlot.of(b("{t}"));
        for (String k : List.of("{t}a", "{t}b", "{t}c")) {
            byte[] key = b(k);
            int h = KeyHash.hash(key);
            Segment s = db.segment(h);
            s.lock();
            try {
                s.put(key, h, "v", k.equals("{t}c") ? 1 : -1);
            } finally {
                s.unlock();
            }
        }
        assertEquals(3, idx.count(slot));
        assertEquals(Set.of("{t}a", "{t}b", "{t}c"), keys(idx, slot));
        // an overwrite keeps one entry; a removal drops it; lazy expiry drops it too
        byte[] a = b("{t}a");
        int ha = KeyHash.hash(a);
        Segment sa = db.segment(ha);
        sa.lock();
        try {
            sa.put(a, ha, "w", -1);
            assertEquals(3, idx.count(slot));
            sa.remove(a, 0, a.length, ha);
        } finally {
            sa.unlock();
        }
        assertEquals(Set.of("{t}b", "{t}c"), keys(idx, slot));
        byte[] c = b("{t}c");
        int hc = KeyHash.hash(c);
        Segment sc = db.segment(hc);
        sc.lock();
        try {
            assertNull(sc.get(c, 0, c.length, hc, 2));
        } finally {
            sc.unlock();
        }
        assertEquals(Set.of("{t}b"), keys(idx, slot));
        assertEquals(1, idx.keys(slot, 1).size());
        db.clear();
        assertEquals(0, idx.count(slot));
    }

    private static void put(Database db, String k) {
        byte[] key = b(k);
        int h = KeyHash.hash(key);
        Segment s = db.segment(h);
        s.lock();
        try {
            s.put(key, h, "v", -1);
        } finally {
            s.unlock();
        }
    }

    /**
     * A replica's {@code repl-diskless-load swapdb} in cluster mode: the keyspace loaded aside is slot-indexed too and
     * its index changes hands with its keys; later writes keep each index in step with its keys.
     */
    @Test
    void aSiblingLoadedAsideSwapsItsSlotIndexWithItsKeys() {
        Keyspace main = new Keyspace(1, true);
        SlotIndex idx = main.db(0).slotIndex();
        put(main.db(0), "06S"); // slot 0
        put(main.db(0), "{t}old");
        Keyspace aside = main.emptySibling();
        SlotIndex asideIdx = aside.db(0).slotIndex();
        assertSame(SlotIndexedSegment.class, aside.db(0).segmentAt(0).getClass());
        put(aside.db(0), "{t}new");
        put(aside.db(0), "{u}x");
        int t = KeySlot.of(b("{t}"));
        int u = KeySlot.of(b("{u}"));
        assertEquals(Set.of("{t}old"), keys(idx, t)); // the load aside does not show before the swap
        assertEquals(0, idx.count(u));
        boolean[] ran = {false};
        main.swapContents(aside, () -> ran[0] = true);
        assertTrue(ran[0]);
        assertSame(idx, main.db(0).slotIndex()); // the same index object, the loaded keys in it
        assertEquals(Set.of("{t}new"), keys(idx, t));
        assertEquals(Set.of("{u}x"), keys(idx, u));
        assertEquals(0, idx.count(0));
        assertEquals(2, main.db(0).size());
        assertEquals(Set.of("06S"), keys(asideIdx, 0));
        assertEquals(Set.of("{t}old"), keys(asideIdx, t));
        // the swapped segments report to the index their database owns: a write after the swap lands in main's
        put(main.db(0), "{u}y");
        assertEquals(Set.of("{u}x", "{u}y"), keys(idx, u));
        assertEquals(0, asideIdx.count(u));
        main.db(0).clear();
        assertEquals(0, idx.count(t));
        assertEquals(0, idx.count(u));
        assertEquals(1, asideIdx.count(0));
        // keys and index must change hands together: a standalone keyspace is not swapped with a slot-indexed one
        assertThrows(IllegalStateException.class, () -> main.swapContents(new Keyspace(1), () -> { }));
    }

    private static void del(Database db, String k) {
        byte[] key = b(k);
        int h = KeyHash.hash(key);
        Segment s = db.segment(h);
        s.lock();
        try {
            s.remove(key, 0, key.length, h);
        } finally {
            s.unlock();
        }
    }

    /**
     * The index holds hashes in an open-addressing table per slot: against a model, through growth, random removals
     * (each moving later cells of its run back), shrinking and emptying; keys of several slots side by side, inline
     * and long keys.
     */
    @Test
    void indexMatchesAModelThroughGrowthRemovalsAndShrinking() {
        Database db = new Keyspace(1, true).db(0);
        SlotIndex idx = db.slotIndex();
        Random random = new Random(20);
        java.util.Map<Integer, Set<String>> model = new java.util.HashMap<>();
        List<String> live = new java.util.ArrayList<>();
        String[] tags = {"{a}", "{b}", "", "{long-tag-for-a-key-longer-than-inline-keys}"};
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 3000; i++) {
                String k = tags[random.nextInt(tags.length)] + "k" + round + "-" + i;
                put(db, k);
                live.add(k);
                model.computeIfAbsent(KeySlot.of(b(k)), x -> new HashSet<>()).add(k);
            }
            java.util.Collections.shuffle(live, random);
            int drop = round == 2 ? live.size() : live.size() * 3 / 4;
            for (int i = 0; i < drop; i++) {
                String k = live.remove(live.size() - 1);
                del(db, k);
                model.get(KeySlot.of(b(k))).remove(k);
            }
            for (String tag : new String[] {"{a}", "{b}", "{long-tag-for-a-key-longer-than-inline-keys}"}) {
                int slot = KeySlot.of(b(tag));
                Set<String> want = model.getOrDefault(slot, Set.of());
                assertEquals(want.size(), idx.count(slot), tag);
                assertEquals(want, keys(idx, slot), tag);
                assertEquals(want.size(), idx.keys(slot, 100_000).size(), tag); // each key once
                assertEquals(want.size(), idx.hashed(slot), tag); // every removal found its hash
                assertEquals(Math.min(5, want.size()), idx.keys(slot, 5).size());
            }
            for (String k : live.subList(0, Math.min(50, live.size()))) {
                int slot = KeySlot.of(b(k));
                assertEquals(model.get(slot).size(), idx.count(slot), k);
                assertTrue(keys(idx, slot).contains(k), k);
            }
        }
        assertEquals(0, db.size());
        for (int slot = 0; slot < KeySlot.SLOTS; slot++) {
            assertEquals(0, idx.count(slot));
        }
    }

    /** Two keys of one slot with one 32-bit hash: both counted, both listed once, each removed on its own. */
    @Test
    void keysSharingAHashAreListedOnceEach() {
        java.util.Map<Integer, String> seen = new java.util.HashMap<>();
        String x = null;
        String y = null;
        for (int i = 0; x == null; i++) {
            String k = "{t}" + i;
            String other = seen.putIfAbsent(KeyHash.hash(b(k)), k);
            if (other != null) {
                x = other;
                y = k;
            }
        }
        Database db = new Keyspace(1, true).db(0);
        SlotIndex idx = db.slotIndex();
        int slot = KeySlot.of(b("{t}"));
        put(db, x);
        put(db, y);
        put(db, "{t}z");
        assertEquals(3, idx.count(slot));
        assertEquals(Set.of(x, y, "{t}z"), keys(idx, slot));
        assertEquals(3, idx.keys(slot, 100).size()); // the shared hash visited once
        del(db, x);
        assertEquals(Set.of(y, "{t}z"), keys(idx, slot));
        del(db, y);
        assertEquals(Set.of("{t}z"), keys(idx, slot));
    }

    /** A zero hash marks an empty cell: a key hashing to 0 is counted beside the table, and leaves it as it came. */
    @Test
    void aZeroHashIsCountedBesideTheTable() {
        Database db = new Keyspace(1, true).db(0);
        SlotIndex idx = db.slotIndex();
        put(db, "{t}a");
        int slot = KeySlot.of(b("{t}"));
        idx.added(slot, 0);
        assertEquals(2, idx.count(slot));
        assertEquals(Set.of("{t}a"), keys(idx, slot)); // no entry of that hash in the segments: nothing more listed
        idx.removed(slot, 0);
        assertEquals(1, idx.count(slot));
        del(db, "{t}a");
        assertEquals(0, idx.count(slot));
        assertEquals(Set.of(), keys(idx, slot));
    }

    @Test
    void keySlotMatchesRedis() {
        // values from redis-server 7.0.15's CLUSTER KEYSLOT
        assertEquals(12182, KeySlot.of(b("foo")));
        assertEquals(5474, KeySlot.of(b("{user}a")));
        assertEquals(KeySlot.of(b("user")), KeySlot.of(b("x{user}y{z}")));
        assertEquals(KeySlot.of(b("{}x")), KeySlot.crc16(b("{}x"), 0, 3) & 16383);
        // the edges of the tag rules (unclosed, empty, nested, a '}' first, two tags)
        String[] keys = {"{", "a{b", "{}}", "a}{b}", "{{a}}", "memtier-12345", "x{}{y}", "{a}{b}"};
        int[] redis = {4092, 13340, 14790, 3300, 10276, 684, 14166, 15495};
        for (int i = 0; i < keys.length; i++) {
            assertEquals(redis[i], KeySlot.of(b(keys[i])), keys[i]);
            byte[] framed = b("##" + keys[i] + "##"); // the key in the middle of a buffer, as read from a request
            assertEquals(redis[i], KeySlot.of(framed, 2, framed.length - 4), keys[i]);
        }
        // the two-bytes-a-step CRC against the byte-at-a-time one, every length up to 40, odd and even offsets
        Random random = new Random(14);
        for (int n = 0; n < 20_000; n++) {
            byte[] key = new byte[2 + random.nextInt(41)];
            random.nextBytes(key);
            for (int j = 0; j < key.length; j++) {
                key[j] = key[j] == '{' ? (byte) 'x' : key[j];
            }
            int off = random.nextInt(2);
            int len = key.length - off - random.nextInt(2);
            assertEquals(KeySlot.crc16(key, off, off + len) & 16383, KeySlot.of(key, off, len));
        }
    }
}
