package dev.spinel.store;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** GET's read without the segment lock: what it answers, when it asks for the lock, and that it never sees a lock holder's unfinished work. */
class OptimisticReadsTest {
    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static Object read(Segment s, String key, long now, boolean touch) {
        byte[] k = bytes(key);
        return OptimisticReads.read(s, k, 0, k.length, KeyHash.hash(k), now, touch);
    }

    private static Segment segmentWith(Keyspace ks, String key, byte[] value, long expireAt) {
        byte[] k = bytes(key);
        Segment s = ks.db(0).segment(KeyHash.hash(k));
        s.lock();
        try {
            s.put(k, KeyHash.hash(k), value, expireAt);
        } finally {
            s.unlock();
        }
        return s;
    }

    private static byte[] string(Object stored) {
        if (stored instanceof byte[] b) {
            return b;
        }
        Entry e = assertInstanceOf(Entry.class, stored);
        byte[] b = new byte[e.stringLength()];
        e.copyString(b, 0);
        return b;
    }

    @Test
    void versionIsOddFromFirstLockToLastUnlock() {
        SegmentLock lock = new SegmentLock();
        long v0 = lock.version();
        assertEquals(0, v0 & 1);
        lock.lock();
        long held = lock.version();
        assertEquals(1, held & 1);
        assertTrue(lock.tryLock());
        lock.unlock();
        assertEquals(held, lock.version(), "a re-entry and its release leave the version alone");
        assertTrue(!lock.validate(v0));
        lock.unlock();
        long v1 = lock.version();
        assertEquals(0, v1 & 1);
        assertNotEquals(v0, v1);
        assertTrue(lock.validate(v1));
    }

    @Test
    void answersAsALockedReadWouldForLiveKeysAndMisses() {
        Keyspace ks = new Keyspace(1);
        byte[] shortValue = bytes("hello");
        byte[] longValue = new byte[300];
        Segment s = segmentWith(ks, "k", shortValue, -1);
        Segment l = segmentWith(ks, "long", longValue, -1);
        assertArrayEquals(shortValue, string(read(s, "k", 0, false)));
        assertSame(longValue, read(l, "long", 0, false));
        assertNull(read(ks.db(0).segment(KeyHash.hash(bytes("absent"))), "absent", 0, false));
    }

    @Test
    void leavesToTheLockWhatOnlyTheLockMayDo() throws Exception {
        Keyspace ks = new Keyspace(1);
        long now = System.currentTimeMillis();
        Segment s = segmentWith(ks, "k", bytes("v"), -1);
        Segment e = segmentWith(ks, "ttl", bytes("v"), now + 1000);
        assertNotEquals(OptimisticReads.LOCK, read(e, "ttl", now, false));
        assertSame(OptimisticReads.LOCK, read(e, "ttl", now + 1000, false), "an expired key is deleted under the lock");

        s.lock(); // held by this thread
        try {
            assertSame(OptimisticReads.LOCK, read(s, "k", now, false));
        } finally {
            s.unlock();
        }
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread holder = Thread.ofPlatform().start(() -> {
            s.lock();
            try {
                held.countDown();
                done.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            } finally {
                s.unlock();
            }
        });
        held.await(5, TimeUnit.SECONDS);
        assertSame(OptimisticReads.LOCK, read(s, "k", now, false), "another thread holds the lock");
        done.countDown();
        holder.join(5000);

        s.lock();
        try {
            s.armCapture((seg, from, to) -> { });
        } finally {
            s.unlock();
        }
        assertSame(OptimisticReads.LOCK, read(s, "k", now, false), "a snapshot's copy is pending");
    }

    @Test
    void touchesOnlyWhatNeedsNoLock() {
        Keyspace ks = new Keyspace(1);
        ks.tickClock();
        Segment s = segmentWith(ks, "k", bytes("value"), -1);
        Segment n = segmentWith(ks, "n", bytes("42"), -1);
        assertNotEquals(OptimisticReads.LOCK, read(s, "k", 0, true), "the stamp is the clock's: nothing to write");
        s.lock();
        try {
            byte[] k = bytes("k");
            s.find(k, 0, k.length, KeyHash.hash(k)).access(ks.nowClock() - 10);
        } finally {
            s.unlock();
        }
        assertSame(OptimisticReads.LOCK, read(s, "k", 0, true), "an old stamp is moved under the lock");
        assertNotEquals(OptimisticReads.LOCK, read(s, "k", 0, false), "NOTOUCH moves nothing");
        assertNotEquals(OptimisticReads.LOCK, read(n, "n", 0, true), "a shared integer's clock is not the entry's");
        ks.lfu(true);
        assertSame(OptimisticReads.LOCK, read(n, "n", 0, true), "an LFU counter is the entry's");
    }

    /**
     * A writer that, under one lock hold, stores an intermediate value, grows and shrinks the table (relinking
     * every chain) and stores the final value: a reader without the lock sees the key always present and never
     * the intermediate value.
     */
    @Test
    void neverSeesALockHoldersUnfinishedWork() throws Exception {
        Keyspace ks = new Keyspace(1);
        byte[] key = bytes("stable");
        int hash = KeyHash.hash(key);
        Segment s = segmentWith(ks, "stable", bytes("final-0"), -1);
        byte[] intermediate = bytes("intermediate");
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = Thread.ofPlatform().start(() -> {
            int round = 0;
            while (!stop.get()) {
                s.lock();
                try {
                    Entry e = s.find(key, 0, key.length, hash);
                    e = s.replaceValue(e, intermediate);
                    for (int i = 0; i < 200; i++) {
                        byte[] k = bytes("other:" + i);
                        s.put(k, KeyHash.hash(k), intermediate, -1);
                    }
                    for (int i = 0; i < 200; i++) {
                        byte[] k = bytes("other:" + i);
                        s.remove(k, 0, k.length, KeyHash.hash(k));
                    }
                    s.replaceValue(s.find(key, 0, key.length, hash), bytes("final-" + ++round));
                } finally {
                    s.unlock();
                }
            }
        });
        int answered = 0;
        try {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            while (System.nanoTime() < end || answered == 0) {
                Object v = OptimisticReads.read(s, key, 0, key.length, hash, 0, false);
                if (v == OptimisticReads.LOCK) {
                    continue;
                }
                answered++;
                String got = new String(string(v), StandardCharsets.US_ASCII);
                assertTrue(got.startsWith("final-"), "saw " + got);
            }
        } catch (Throwable t) {
            failure.set(t);
        } finally {
            stop.set(true);
            writer.join(5000);
        }
        if (failure.get() != null) {
            throw new AssertionError("after " + answered + " reads", failure.get());
        }
        assertTrue(answered > 0);
    }
}
