package dev.spinel.store;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The per-key layout: keys held inline up to {@link InlineKeyEntry#MAX_LENGTH} bytes, hashed and compared as arrays. */
class EntryLayoutTest {
    private final Random rnd = new Random(42);

    private byte[] randomKey(int len) {
        byte[] k = new byte[len];
        rnd.nextBytes(k);
        return k;
    }

    @Test
    void inlineKeysRoundTripAndHashAsTheirBytes() {
        for (int len = 0; len <= InlineKeyEntry.MAX_LENGTH; len++) {
            for (int n = 0; n < 200; n++) {
                byte[] key = randomKey(len);
                if (n == 0) {
                    Arrays.fill(key, (byte) 0);
                } else if (n == 1) {
                    Arrays.fill(key, (byte) 0xff);
                }
                Entry e = InlineKeyEntry.of(key, 0, len, new byte[0], -1);
                assertArrayEquals(key, e.key());
                assertEquals(len, e.keyLength());
                assertEquals(KeyHash.hash(key), e.keyHash(), "length " + len);
                byte[] scratch = new byte[Entry.MAX_INLINE_KEY];
                assertSame(scratch, e.keyBytes(scratch));
                assertArrayEquals(key, Arrays.copyOf(scratch, len));
            }
        }
    }

    @Test
    void keysDifferingOnlyInLengthOrTrailingZerosAreDistinct() {
        Keyspace ks = new Keyspace(1);
        Segment s = ks.db(0).segmentAt(0);
        s.lock();
        try {
            byte[][] keys = {new byte[0], {0}, {0, 0}, {'a'}, {'a', 0}, new byte[19], new byte[20], new byte[8], new byte[16],
                new byte[24], new byte[27], new byte[28]};
            for (int i = 0; i < keys.length; i++) {
                s.put(keys[i], KeyHash.hash(keys[i]), new byte[]{(byte) i}, -1);
            }
            assertEquals(keys.length, s.size());
            for (int i = 0; i < keys.length; i++) {
                Entry e = s.find(keys[i], 0, keys[i].length, KeyHash.hash(keys[i]));
                assertArrayEquals(new byte[]{(byte) i}, (byte[]) e.value());
                assertArrayEquals(keys[i], e.key());
            }
        } finally {
            s.unlock();
        }
    }

    @Test
    void keysDifferingOnlyInTheirLastByteAreDistinctAtEveryLength() {
        Keyspace ks = new Keyspace(1);
        Segment s = ks.db(0).segmentAt(0);
        s.lock();
        try {
            for (int len = 1; len <= 40; len++) {
                for (int last = 0; last < 3; last++) {
                    byte[] k = new byte[len];
                    Arrays.fill(k, (byte) 'k');
                    k[len - 1] = (byte) last;
                    s.put(k, KeyHash.hash(k), new byte[]{(byte) len, (byte) last}, -1);
                }
            }
            assertEquals(120, s.size());
            for (int len = 1; len <= 40; len++) {
                for (int last = 0; last < 3; last++) {
                    byte[] k = new byte[len];
                    Arrays.fill(k, (byte) 'k');
                    k[len - 1] = (byte) last;
                    assertArrayEquals(new byte[]{(byte) len, (byte) last}, (byte[]) s.find(k, 0, len, KeyHash.hash(k)).value());
                }
            }
        } finally {
            s.unlock();
        }
    }

    @Test
    void shortKeysAreInlineAndLongOnesKeepTheirArray() {
        Keyspace ks = new Keyspace(1);
        Segment s = ks.db(0).segmentAt(0);
        s.lock();
        try {
            byte[] shortKey = randomKey(19);
            byte[] wideKey = randomKey(27);
            byte[] longKey = randomKey(28);
            Entry a = s.put(shortKey, KeyHash.hash(shortKey), new byte[0], -1);
            Entry w = s.put(wideKey, KeyHash.hash(wideKey), new byte[0], -1);
            Entry b = s.put(longKey, KeyHash.hash(longKey), new byte[0], -1);
            assertEquals(InlineKeyEntry.Ref.class, a.getClass());
            assertNotSame(shortKey, a.key());
            assertEquals(WideKeyEntry.class, w.getClass());
            assertArrayEquals(wideKey, w.key());
            assertInstanceOf(ArrayKeyEntry.class, b);
            assertSame(longKey, b.key());
            // a key given as a slice of a larger buffer is copied, inline or not
            byte[] buf = randomKey(64);
            Entry c = s.insert(buf, 3, 12, KeyHash.hash(buf, 3, 12), new byte[0], 5);
            Entry cw = s.insert(buf, 2, 23, KeyHash.hash(buf, 2, 23), new byte[0], 6);
            Entry d = s.insert(buf, 30, 33, KeyHash.hash(buf, 30, 33), new byte[0], -1);
            Arrays.fill(buf, (byte) 1);
            assertInstanceOf(InlineKeyEntry.Ref.Volatile.class, c);
            assertEquals(5, c.expireAt());
            assertInstanceOf(WideKeyEntry.Volatile.class, cw);
            assertEquals(33, d.keyLength());
            assertSame(c, s.find(c.key(), 0, 12, KeyHash.hash(c.key())));
            assertSame(cw, s.find(cw.key(), 0, 23, KeyHash.hash(cw.key())));
            assertSame(d, s.find(d.key(), 0, 33, KeyHash.hash(d.key())));
            assertNull(s.find(buf, 3, 12, KeyHash.hash(buf, 3, 12)));
        } finally {
            s.unlock();
        }
    }

    @Test
    void memoryFollowsTheEntryClassesAndReturnsToZero() {
        Keyspace ks = new Keyspace(1);
        Segment s = ks.db(0).segmentAt(0);
        s.lock();
        try {
            byte[] k = randomKey(14);
            int h = KeyHash.hash(k);
            Entry e = s.put(k, h, new byte[64], -1);
            assertEquals(Segment.SLOT_OVERHEAD + InlineKeyEntry.Ref.SIZE + Sizes.array(64), s.memory());
            e = s.setExpire(e, 1000);
            assertEquals(Segment.SLOT_OVERHEAD + InlineKeyEntry.Ref.VOLATILE_SIZE + Sizes.array(64), s.memory());
            e = s.setExpire(e, -1);
            assertEquals(Segment.SLOT_OVERHEAD + InlineKeyEntry.Ref.SIZE + Sizes.array(64), s.memory());
            byte[] lk = randomKey(30);
            Entry l = s.put(lk, KeyHash.hash(lk), new byte[64], 7);
            assertEquals(2 * (Segment.SLOT_OVERHEAD + Sizes.array(64)) + InlineKeyEntry.Ref.SIZE + ArrayKeyEntry.VOLATILE_SIZE
                    + Sizes.array(30), s.memory());
            s.removeEntry(l);
            assertEquals(Segment.SLOT_OVERHEAD + InlineKeyEntry.Ref.SIZE + Sizes.array(64), s.memory());
            byte[] wk = randomKey(22);
            Entry w = s.put(wk, KeyHash.hash(wk), new byte[64], -1);
            long withWide = 2 * (Segment.SLOT_OVERHEAD + Sizes.array(64)) + InlineKeyEntry.Ref.SIZE;
            assertEquals(withWide + WideKeyEntry.SIZE, s.memory());
            w = s.setExpire(w, 9);
            assertEquals(withWide + WideKeyEntry.VOLATILE_SIZE, s.memory());
            w = s.setExpire(w, 10);
            assertEquals(10, w.expireAt());
            assertEquals(withWide + WideKeyEntry.VOLATILE_SIZE, s.memory());
            s.removeEntry(w);
            s.removeEntry(e);
            assertEquals(0, s.memory());
        } finally {
            s.unlock();
        }
    }
}
