package dev.spinel.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Copy-on-write per chunk ({@link Segment#armCapture}): whatever writers do after arming (overwrite, delete,
 * insert enough to resize, change expiry, SWAPDB-style iteration), every key present when armed is captured
 * exactly once with its value at that moment, and nothing written later is.
 */
class SegmentCaptureTest {
    private static final int KEYS = 40_000;

    /** Records what a capture sees, per key; fails on a key seen twice. */
    private static final class Recorder implements SegmentCapture {
        final Map<String, String> seen = new ConcurrentHashMap<>();
        volatile String duplicate;

        @Override
        public void capture(Segment segment, int fromBucket, int toBucket) {
            assertTrue(segment.isHeldByCurrentThread());
            segment.forEachInBuckets(fromBucket, toBucket, e -> {
                String k = new String(e.key(), StandardCharsets.ISO_8859_1);
                if (seen.put(k, new String((byte[]) e.value(), StandardCharsets.ISO_8859_1)) != null) {
                    duplicate = k;
                }
            });
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static void set(Database db, String key, String value) {
        byte[] k = b(key);
        int h = KeyHash.hash(k);
        Segment s = db.segment(h);
        s.lock();
        try {
            s.put(k, h, b(value), -1);
        } finally {
            s.unlock();
        }
    }

    private static Recorder arm(Keyspace ks) {
        Recorder r = new Recorder();
        ks.lockAll();
        try {
            for (int i = 0; i < Database.SEGMENTS; i++) {
                ks.db(0).segmentAt(i).armCapture(r);
            }
        } finally {
            ks.unlockAll();
        }
        return r;
    }

    /** What the save thread does: the chunks no writer copied, a few per lock hold. */
    private static void drain(Keyspace ks) {
        for (int i = 0; i < Database.SEGMENTS; i++) {
            Segment s = ks.db(0).segmentAt(i);
            boolean more = true;
            while (more) {
                s.lock();
                try {
                    more = s.capturePending(3);
                    if (!more) {
                        assertFalse(s.hasPendingCapture());
                    }
                } finally {
                    s.unlock();
                }
                Thread.yield();
            }
        }
    }

    @Test
    @Timeout(60)
    void concurrentWritersNeverLeakIntoTheArmedImage() throws Exception {
        Keyspace ks = new Keyspace(1);
        Database db = ks.db(0);
        Map<String, String> armed = new HashMap<>();
        for (int i = 0; i < KEYS; i++) {
            set(db, "k" + i, "v0");
            armed.put("k" + i, "v0");
        }
        for (int round = 1; round <= 3; round++) {
            Recorder r = arm(ks);
            String tag = "v" + round;
            AtomicBoolean stop = new AtomicBoolean();
            Thread[] writers = new Thread[2];
            for (int w = 0; w < writers.length; w++) {
                int id = w;
                writers[w] = new Thread(() -> {
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    for (int n = 0; !stop.get() || n < 20_000; n++) {
                        int k = rnd.nextInt(KEYS);
                        byte[] key = b(rnd.nextInt(6) == 0 ? "new" + id + ":" + n : "k" + k); // new keys: tables grow
                        // (resize under a pending capture)
                        int h = KeyHash.hash(key);
                        Segment s = db.segment(h);
                        s.lock();
                        try {
                            switch (rnd.nextInt(5)) {
                                case 0 -> s.remove(key, 0, key.length, h);
                                case 1 -> {
                                    Entry e = s.get(key, 0, key.length, h, System.currentTimeMillis());
                                    if (e != null) {
                                        s.replaceValue(e, b(tag)); // in place, as INCR or SETRANGE would
                                    }
                                }
                                case 2 -> {
                                    Entry e = s.get(key, 0, key.length, h, System.currentTimeMillis());
                                    if (e != null) {
                                        s.setExpire(e, System.currentTimeMillis() + 100_000);
                                    }
                                }
                                case 3 -> s.replaceValue(s.randomEntry(rnd), b(tag));
                                default -> s.put(key, h, b(tag), -1);
                            }
                        } finally {
                            s.unlock();
                        }
                    }
                });
                writers[w].start();
            }
            Thread.sleep(5); // let writers copy chunks first, then race them
            drain(ks);
            stop.set(true);
            for (Thread t : writers) {
                t.join();
            }
            assertNull(r.duplicate, "captured twice");
            List<String> wrong = armed.entrySet().stream().filter(e -> !e.getValue().equals(r.seen.get(e.getKey())))
                    .map(e -> e.getKey() + "=" + r.seen.get(e.getKey())).limit(5).toList();
            assertEquals(List.of(), wrong, "round " + round + ": keys not as armed");
            assertEquals(armed.size(), r.seen.size(), "round " + round + ": keys written after arming were captured");
            // The next round's armed state: everything as it is now (read with iteration).
            armed.clear();
            for (int i = 0; i < Database.SEGMENTS; i++) {
                Segment s = db.segmentAt(i);
                s.lock();
                try {
                    s.forEach(e -> armed.put(new String(e.key(), StandardCharsets.ISO_8859_1),
                            new String((byte[]) e.value(), StandardCharsets.ISO_8859_1)));
                } finally {
                    s.unlock();
                }
            }
        }
    }

    @Test
    void twoSnapshotsArmedAtDifferentMomentsEachSeeTheirOwnState() {
        Keyspace ks = new Keyspace(1);
        Database db = ks.db(0);
        for (int i = 0; i < 5_000; i++) {
            set(db, "k" + i, "a");
        }
        Recorder first = arm(ks);
        for (int i = 0; i < 5_000; i += 2) {
            set(db, "k" + i, "b"); // copies those chunks for the first snapshot only
        }
        Recorder second = arm(ks);
        for (int i = 0; i < 5_000; i++) {
            set(db, "k" + i, "c");
        }
        drain(ks);
        assertEquals(5_000, first.seen.size());
        assertTrue(first.seen.values().stream().allMatch("a"::equals), "first");
        assertEquals(5_000, second.seen.size());
        for (int i = 0; i < 5_000; i++) {
            assertEquals(i % 2 == 0 ? "b" : "a", second.seen.get("k" + i), "k" + i);
        }
        assertNull(first.duplicate);
        assertNull(second.duplicate);
    }

    @Test
    void clearAndIterationCopyWhatIsLeftFirst() {
        Keyspace ks = new Keyspace(1);
        Database db = ks.db(0);
        for (int i = 0; i < 2_000; i++) {
            set(db, "k" + i, "a");
        }
        Recorder r = arm(ks);
        ks.clearAll();
        assertEquals(2_000, r.seen.size());
        for (int i = 0; i < Database.SEGMENTS; i++) {
            assertFalse(db.segmentAt(i).hasPendingCapture());
        }
    }
}
