package dev.spinel.store;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link Counters}: parsing in place as string2ll, and the new digits written into the entry for every key kind. */
class CountersTest {
    private static final String[] TEXTS = {"0", "-0", "01", "-", "", "7", "-7", "10", "9223372036854775807",
            "9223372036854775808", "-9223372036854775808", "-9223372036854775809", " 1", "1 ", "+1", "12a", "1a",
            "123456789012345678901", "00", "-01", "4294967296", "99999999", "999999999"};

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] key(int len) {
        byte[] k = new byte[len];
        for (int i = 0; i < len; i++) {
            k[i] = (byte) ('a' + i % 26);
        }
        return k;
    }

    @Test
    void parsesAsString2llWhereverTheStringIs() {
        Keyspace ks = new Keyspace(1);
        Segment s = ks.db(0).segmentAt(0);
        s.lock();
        try {
            for (int klen : new int[] {5, 19, 22, 40}) {
                for (String text : TEXTS) {
                    byte[] v = b(text);
                    byte[] k = key(klen);
                    int h = KeyHash.hash(k);
                    Entry e = s.put(k, h, v, -1);
                    for (int grown = 0; grown < 2; grown++) {
                        if (StringEncoding.isInteger(v)) {
                            assertEquals(StringEncoding.integerValue(v), Counters.parse(e), text);
                        } else {
                            Entry probe = e;
                            assertThrows(NumberFormatException.class, () -> Counters.parse(probe), text);
                        }
                        if (v.length > 0) {
                            e = InPlaceStrings.grow(s, e, v.length); // an array with spare room, longer than the string
                            assertInstanceOf(GrowableString.class, e.storedValue());
                        }
                    }
                    s.removeEntry(e);
                }
            }
            assertEquals(0, s.memory());
        } finally {
            s.unlock();
        }
    }

    @Test
    void newDigitsReplaceAndInsertForEveryKeyKind() {
        Keyspace ks = new Keyspace(1);
        Segment s = ks.db(0).segmentAt(0);
        Random rnd = new Random(15);
        long[] values = new long[40];
        long[] fixed = {0, 1, -1, 9, -9, 10, -10, 99_999_999, 100_000_000, -9_999_999, 1234567812345678L,
                Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1};
        System.arraycopy(fixed, 0, values, 0, fixed.length);
        for (int i = fixed.length; i < values.length; i++) {
            values[i] = rnd.nextLong() >> rnd.nextInt(64);
        }
        s.lock();
        try {
            for (int klen : new int[] {0, 14, 19, 20, 27, 28, 40}) {
                byte[] buf = new byte[klen + 6];
                System.arraycopy(key(klen), 0, buf, 3, klen);
                byte[] k = key(klen);
                int h = KeyHash.hash(k);
                Entry e = Counters.insert(s, buf, 3, klen, h, 5);
                assertSame(e, s.find(k, 0, klen, h));
                assertArrayEquals(b("5"), (byte[]) e.value());
                e.access(-31);
                e = s.setExpire(e, 777);
                for (long v : values) {
                    Entry n = Counters.replace(s, e, v);
                    assertArrayEquals(b(Long.toString(v)), (byte[]) n.value(), v + " key " + klen);
                    assertEquals(Long.toString(v).length(), Counters.length(v));
                    assertEquals(v, Counters.parse(n));
                    assertEquals(777, n.expireAt());
                    assertEquals(-31, n.access());
                    assertSame(n, s.find(k, 0, klen, h));
                    assertEquals(klen <= InlineKeyEntry.MAX_LENGTH, n instanceof InlineStringEntry);
                    assertEquals(Segment.SLOT_OVERHEAD + n.footprint() + n.valueFootprint(), s.memory());
                    e = n;
                }
                s.removeEntry(e);
                assertEquals(0, s.memory());
                assertEquals(0, s.size());
            }
        } finally {
            s.unlock();
        }
    }
}
