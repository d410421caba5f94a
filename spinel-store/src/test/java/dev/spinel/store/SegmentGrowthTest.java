package dev.spinel.store;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The chained table's load: it doubles above {@link Segment#MAX_LOAD} keys per bucket and shrinks below one per four buckets. */
class SegmentGrowthTest {
    private static byte[] key(int i) {
        return ("key:" + i).getBytes(StandardCharsets.US_ASCII);
    }

    private static void put(Segment s, int i) {
        byte[] k = key(i);
        s.put(k, KeyHash.hash(k), new byte[]{1}, -1);
    }

    private static void remove(Segment s, int i) {
        byte[] k = key(i);
        assertTrue(s.remove(k, 0, k.length, KeyHash.hash(k)));
    }

    private static void assertAllFound(Segment s, int from, int to) {
        for (int i = from; i < to; i++) {
            byte[] k = key(i);
            assertNotNull(s.find(k, 0, k.length, KeyHash.hash(k)), "key " + i);
        }
    }

    @Test
    void growsOnlyAboveTwoKeysPerBucket() {
        Segment s = new Keyspace(1).db(0).segmentAt(0);
        s.lock();
        try {
            int n = 0;
            for (int capacity = 8; capacity <= 1024; capacity *= 2) {
                while (n < Segment.MAX_LOAD * capacity) {
                    put(s, n++);
                    assertEquals(capacity, s.capacity(), "keys " + n);
                }
                put(s, n++);
                assertEquals(capacity * 2, s.capacity(), "keys " + n);
                assertAllFound(s, 0, n);
            }
        } finally {
            s.unlock();
        }
    }

    @Test
    void shrinksBelowOneKeyPerFourBucketsToAboutOnePerBucket() {
        Segment s = new Keyspace(1).db(0).segmentAt(0);
        s.lock();
        try {
            int n = 4097; // 4097 > 2 * 2048: 4096 buckets
            for (int i = 0; i < n; i++) {
                put(s, i);
            }
            assertEquals(4096, s.capacity());
            int removed = 0;
            while (s.size() > 4096 / Segment.SHRINK_BUCKETS_PER_KEY) {
                remove(s, removed++);
                assertEquals(4096, s.capacity(), "keys " + s.size());
            }
            remove(s, removed++); // 1023 keys, fewer than one per four buckets
            assertEquals(1024, s.capacity()); // 0.999 keys per bucket
            assertAllFound(s, removed, n);
            while (s.size() > 1) {
                int before = s.capacity();
                remove(s, removed++);
                if (s.capacity() != before) {
                    assertTrue(s.size() < before / Segment.SHRINK_BUCKETS_PER_KEY, "shrunk early at " + s.size());
                    assertTrue(s.capacity() > s.size() && s.capacity() <= 2 * Math.max(s.size(), 4), "capacity " + s.capacity());
                }
            }
            assertAllFound(s, removed, n);
        } finally {
            s.unlock();
        }
    }

    @Test
    void scanAtFullLoadReturnsEveryKeyAcrossGrowthAndShrink() {
        Segment s = new Keyspace(1).db(0).segmentAt(0);
        s.lock();
        try {
            for (int i = 0; i < 2 * 256; i++) { // exactly two keys per bucket of 256
                put(s, i);
            }
            assertEquals(256, s.capacity());
            Set<String> seen = new HashSet<>();
            long cursor = 0;
            int step = 0;
            int next = 512;
            do {
                cursor = s.scan(cursor, 10, e -> seen.add(new String(e.key(), StandardCharsets.US_ASCII)));
                if (step == 3) {
                    put(s, next++); // 513 keys: grows to 512 buckets mid-scan
                    assertEquals(512, s.capacity());
                } else if (step == 10) {
                    for (int i = 100; i < 512; i++) { // keys 0..99 and 512 stay: 101 < 512 / 4
                        remove(s, i);
                    }
                    assertEquals(128, s.capacity()); // shrunk mid-scan at 127 keys
                }
                step++;
            } while (cursor != 0);
            for (int i = 0; i < 100; i++) { // present for the whole scan: returned at least once
                assertTrue(seen.contains("key:" + i), "key " + i + " missed");
            }
        } finally {
            s.unlock();
        }
    }
}
