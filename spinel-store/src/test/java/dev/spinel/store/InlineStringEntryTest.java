package dev.spinel.store;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Short strings of short keys held in the entry's own fields ({@link InlineStringEntry}). */
class InlineStringEntryTest {
    private final Random rnd = new Random(7);

    private byte[] bytes(int len) {
        byte[] b = new byte[len];
        rnd.nextBytes(b);
        return b;
    }

    private static void assertValue(byte[] expected, Entry e) {
        assertTrue(e.isString());
        assertEquals(expected.length, e.stringLength());
        assertArrayEquals(expected, (byte[]) e.value());
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i] & 0xff, e.stringByte(i), "byte " + i);
        }
        byte[] dst = new byte[expected.length + 10];
        Arrays.fill(dst, (byte) 0x5a);
        e.copyString(dst, 5); // exactly the value's bytes, nothing around them
        byte[] around = new byte[5];
        Arrays.fill(around, (byte) 0x5a);
        assertArrayEquals(around, Arrays.copyOfRange(dst, 0, 5));
        assertArrayEquals(expected, Arrays.copyOfRange(dst, 5, 5 + expected.length));
        assertArrayEquals(around, Arrays.copyOfRange(dst, 5 + expected.length, dst.length));
        byte[] scratch = new byte[Entry.MAX_INLINE_STRING];
        assertArrayEquals(expected, Arrays.copyOf(e.stringBytes(scratch), expected.length));
    }

    @Test
    void everyKeyAndValueLengthRoundTrips() {
        for (int klen = 0; klen <= InlineKeyEntry.MAX_LENGTH; klen++) {
            for (int vlen = 0; vlen <= InlineStringEntry.MAX_LENGTH + 9; vlen++) {
                for (int n = 0; n < 4; n++) {
                    byte[] key = bytes(klen);
                    byte[] value = bytes(vlen);
                    if (n == 1) {
                        Arrays.fill(value, (byte) 0xff); // sign bits everywhere: the length bits must not leak
                        Arrays.fill(key, (byte) 0xff);
                    } else if (n == 2) {
                        Arrays.fill(value, (byte) 0);
                    }
                    long at = n == 3 ? 1234 : -1;
                    Entry e = InlineKeyEntry.of(key, 0, klen, value, at);
                    boolean wide = klen > InlineKeyEntry.BASE_LENGTH;
                    boolean inline = vlen >= 1 && vlen <= (wide ? InlineStringEntry.MAX_WIDE_LENGTH : InlineStringEntry.MAX_LENGTH);
                    assertEquals(inline, e instanceof InlineStringEntry, klen + "/" + vlen);
                    assertEquals(wide && !inline, e instanceof WideKeyEntry, klen + "/" + vlen);
                    if (inline) {
                        int words = (vlen + 7) / 8 + (wide ? 1 : 0); // a wide key's bytes 19-26 are word 0
                        assertEquals(words, ((InlineStringEntry) e).words());
                        assertEquals(InlineKeyEntry.SIZE + 8 * words + (at >= 0 ? 8 : 0), e.footprint());
                        assertEquals(0, e.valueFootprint());
                        assertSame(e, e.storedValue());
                        assertSame(ValueType.STRING, ValueType.of(e.storedValue()));
                    }
                    assertEquals(at, e.expireAt());
                    assertEquals(klen, e.keyLength());
                    assertArrayEquals(key, e.key());
                    assertEquals(KeyHash.hash(key), e.keyHash());
                    assertTrue(((InlineKeyEntry) e).keyIs(InlineKeyEntry.pack0(key, 0, klen), InlineKeyEntry.pack1(key, 0, klen),
                            InlineKeyEntry.pack2(key, 0, klen), InlineKeyEntry.pack3(key, 0, klen)));
                    assertValue(value, e);
                }
            }
        }
    }

    @Test
    void aNewValueMakesANewEntryAndKeepsStampMarkAndExpiry() {
        Keyspace ks = new Keyspace(1);
        Segment s = ks.db(0).segmentAt(0);
        s.lock();
        try {
            byte[] k = bytes(14);
            int h = KeyHash.hash(k);
            byte[] v1 = bytes(32);
            Entry e = s.put(k, h, v1, 5000);
            assertInstanceOf(InlineStringEntry.S4.Volatile.class, e);
            e.access(-77);
            e.stringMark(Entry.STRING_RAW);
            byte[] v2 = bytes(9);
            Entry n = s.replaceValue(e, v2);
            assertNotSame(e, n);
            assertInstanceOf(InlineStringEntry.S2.Volatile.class, n);
            assertValue(v1, e); // the old entry still holds the old value: a snapshot may keep it
            assertValue(v2, n);
            assertEquals(5000, n.expireAt());
            assertEquals(-77, n.access());
            assertEquals(Entry.STRING_DERIVED, n.stringMark()); // a new value's mark
            assertSame(n, s.find(k, 0, k.length, h));
            // to a long string: an entry with a reference, and back
            byte[] v3 = bytes(100);
            Entry r = s.replaceValue(n, v3);
            assertEquals(InlineKeyEntry.Ref.Volatile.class, r.getClass());
            assertSame(v3, r.value());
            Entry back = s.replaceValue(r, v1);
            assertInstanceOf(InlineStringEntry.S4.Volatile.class, back);
            assertValue(v1, back);
            Entry persistent = s.setExpire(back, -1);
            assertInstanceOf(InlineStringEntry.S4.class, persistent);
            assertFalse(persistent instanceof InlineStringEntry.S4.Volatile);
            assertValue(v1, persistent);
            assertSame(persistent, s.find(k, 0, k.length, h));
            assertEquals(1, s.size());
            assertEquals(Segment.SLOT_OVERHEAD + InlineKeyEntry.SIZE + 32, s.memory());
            // a collection replaces a string: a reference again
            TypedValue list = new TypedValue() {
                public ValueType type() { return ValueType.LIST; }
                public String encoding() { return "listpack"; }
                public long memoryUsage() { return 100; }
                public TypedValue copy() { return this; }
                public long size() { return 1; }
            };
            Entry c = s.replaceValue(persistent, list);
            assertFalse(c.isString());
            assertSame(list, c.value());
            assertEquals(Segment.SLOT_OVERHEAD + InlineKeyEntry.Ref.SIZE + 100, s.memory());
            s.removeEntry(c);
            assertEquals(0, s.memory());
        } finally {
            s.unlock();
        }
    }

    @Test
    void aWideKeysStringIsHeldInItsEntryAfterTheKeysLastWord() {
        Keyspace ks = new Keyspace(1);
        Segment s = ks.db(0).segmentAt(0);
        s.lock();
        try {
            byte[] k = "user:session:12345678".getBytes(); // 21 bytes: bytes 19-26 in the first word
            int h = KeyHash.hash(k);
            byte[] v1 = bytes(32);
            Entry e = s.insertString(k, 0, k.length, h, v1, 0, v1.length, -1);
            assertInstanceOf(InlineStringEntry.S5.class, e); // 40 + 8 (key) + 32: 80 B, was 56 + a 48-byte array
            assertEquals(80, e.footprint());
            assertValue(v1, e);
            assertArrayEquals(k, e.key());
            assertSame(e, s.find(k, 0, k.length, h));
            Entry t = s.setExpire(e, 9000);
            assertInstanceOf(InlineStringEntry.S5.Volatile.class, t);
            assertArrayEquals(k, t.key());
            assertValue(v1, t);
            byte[] v2 = bytes(40); // the longest a wide key holds
            Entry n = s.replaceString(t, v2, 0, v2.length);
            assertInstanceOf(InlineStringEntry.S6.Volatile.class, n);
            assertValue(v2, n);
            assertValue(v1, t); // the old entry keeps its value for a snapshot
            byte[] v3 = bytes(41); // one more byte: a reference
            Entry r = s.replaceValue(n, v3);
            assertEquals(WideKeyEntry.Volatile.class, r.getClass());
            assertSame(v3, r.value());
            Entry back = s.replaceValue(r, v1);
            assertInstanceOf(InlineStringEntry.S5.Volatile.class, back);
            assertValue(v1, back);
            assertEquals(9000, back.expireAt());
            assertSame(back, s.find(k, 0, k.length, h));
            assertEquals(Segment.SLOT_OVERHEAD + 88, s.memory());
            // a key differing only in its last byte is another key
            byte[] k2 = k.clone();
            k2[20]++;
            assertNull(s.find(k2, 0, k2.length, KeyHash.hash(k2)));
            s.removeEntry(back);
            assertEquals(0, s.memory());
        } finally {
            s.unlock();
        }
    }

    @Test
    void memoryFollowsTheValueWordsAndReturnsToZero() {
        Keyspace ks = new Keyspace(1);
        Segment s = ks.db(0).segmentAt(0);
        s.lock();
        try {
            long expected = 0;
            Entry[] entries = new Entry[60];
            for (int i = 0; i < entries.length; i++) {
                byte[] k = ("key:" + i).getBytes();
                byte[] v = bytes(i);
                entries[i] = s.put(k, KeyHash.hash(k), v, i % 2 == 0 ? -1 : 99);
                boolean inline = i >= 1 && i <= InlineStringEntry.MAX_LENGTH;
                expected += Segment.SLOT_OVERHEAD + (i % 2 == 0 ? 0 : 8)
                        + (inline ? InlineKeyEntry.SIZE + 8L * ((i + 7) / 8) : InlineKeyEntry.Ref.SIZE + Sizes.array(i));
                assertEquals(expected, s.memory(), "value of " + i);
            }
            for (Entry e : entries) {
                s.removeEntry(e);
            }
            assertEquals(0, s.memory());
        } finally {
            s.unlock();
        }
    }
}
