package dev.spinel.store.types;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HLL encoding on its own; the expected values (register positions, DECODE strings, estimates)
 * were read from redis-server 7.0.15 (PFDEBUG DECODE, PFCOUNT) for the same input.
 */
class HyperLogLogTest {
    private static final long MAX = 3000;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static HyperLogLog with(String... elements) {
        HyperLogLog h = HyperLogLog.create();
        for (String e : elements) {
            byte[] x = b(e);
            h.add(x, 0, x.length, MAX);
        }
        return h;
    }

    @Test
    void emptyValueIsRedisBytes() {
        byte[] v = HyperLogLog.create().bytes();
        byte[] expected = {'H', 'Y', 'L', 'L', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f, (byte) 0xff};
        assertArrayEquals(expected, v);
        assertTrue(HyperLogLog.isValid(v));
        assertEquals(0, HyperLogLog.of(v).count());
    }

    @Test
    void registerIndexAndRunLengthAsRedis() {
        assertEquals("Z:12711 v:2,1 Z:3672", with("a").decode());
        assertEquals("Z:15780 v:1,1 Z:603", with("b").decode());
        assertEquals("Z:8436 v:1,1 Z:7947", with("c").decode());
        assertEquals("Z:5938 v:2,1 Z:10445", with("").decode());
        assertEquals("Z:4271 v:1,1 Z:12112", with("abcdefghijklmnopq").decode());
        assertEquals("Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603", with("a", "b", "c").decode());
    }

    @Test
    void estimatesMatchRedis() {
        long[][] known = {{1000, 1001}, {100000, 99565}, {1000000, 1009972}};
        for (long[] k : known) {
            HyperLogLog h = HyperLogLog.create();
            for (int i = 0; i < k[0]; i++) {
                byte[] x = b(Integer.toString(i));
                h.add(x, 0, x.length, MAX);
            }
            assertEquals(k[1], h.count(), "PFCOUNT after PFADD 0.." + (k[0] - 1));
        }
    }

    @Test
    void denseRegistersRoundTrip() {
        byte[] dense = new byte[HyperLogLog.DENSE_SIZE];
        int[] values = new int[HyperLogLog.REGISTERS];
        Random r = new Random(7);
        for (int i = 0; i < values.length; i++) {
            values[i] = r.nextInt(64);
            HyperLogLog.denseSet(dense, i, values[i]);
        }
        for (int i = 0; i < values.length; i++) {
            assertEquals(values[i], HyperLogLog.denseGet(dense, i), "register " + i);
        }
    }

    @Test
    void sparseAndDenseAgree() {
        Random r = new Random(11);
        HyperLogLog sparse = HyperLogLog.create();
        for (int i = 0; i < 300; i++) {
            byte[] x = b("el" + r.nextInt(100000));
            sparse.add(x, 0, x.length, Long.MAX_VALUE);
        }
        assertEquals(HyperLogLog.SPARSE, sparse.encoding());
        byte[] maxSparse = new byte[HyperLogLog.REGISTERS];
        assertTrue(sparse.mergeInto(maxSparse));
        long estimate = sparse.count();
        HyperLogLog dense = HyperLogLog.of(sparse.bytes());
        assertTrue(dense.toDense());
        assertEquals(HyperLogLog.DENSE, dense.encoding());
        assertEquals(HyperLogLog.DENSE_SIZE, dense.bytes().length);
        byte[] maxDense = new byte[HyperLogLog.REGISTERS];
        assertTrue(dense.mergeInto(maxDense));
        assertArrayEquals(maxSparse, maxDense);
        assertEquals(estimate, dense.count());
        assertEquals(estimate, HyperLogLog.countRaw(maxDense));
    }

    @Test
    void valueAbove32PromotesToDense() {
        HyperLogLog h = with("a");
        assertEquals(1, h.sparseSet(100, 40, MAX));
        assertEquals(HyperLogLog.DENSE, h.encoding());
        assertEquals(40, h.register(100));
        assertEquals(2, h.register(12711));
    }

    @Test
    void elementWithRegisterValue33PromotesToDense() {
        byte[] x = {(byte) 0xba, 0x09, (byte) 0x9d, (byte) 0xba, 0, 0, 0, 0}; // found by search; Redis agrees
        assertEquals((33L << 32) | 3655, HllMath.patLen(x, 0, x.length));
        HyperLogLog h = with("a");
        assertEquals(1, h.add(x, 0, x.length, MAX));
        assertEquals(HyperLogLog.DENSE, h.encoding());
        assertEquals(33, h.register(3655));
        assertEquals(0, h.add(x, 0, x.length, MAX));
    }

    @Test
    void growthPastSparseLimitPromotes() {
        HyperLogLog h = HyperLogLog.create();
        for (int i = 0; i < 100 && h.encoding() == HyperLogLog.SPARSE; i++) {
            byte[] x = b(Integer.toString(i));
            h.add(x, 0, x.length, 40);
        }
        assertEquals(HyperLogLog.DENSE, h.encoding());
    }

    @Test
    void cacheBitAndValue() {
        assertTrue(HyperLogLog.create().cacheValid()); // created with a valid cache of 0
        HyperLogLog h = with("a", "b"); // a sparse change invalidates the cache (hllSparseSet does)
        assertFalse(h.cacheValid());
        h.setCachedCard(1234567890123L);
        assertTrue(h.cacheValid());
        assertEquals(1234567890123L, h.cachedCard());
    }

    @Test
    void storedArrayIsNeverModified() {
        byte[] stored = with("a").bytes();
        byte[] copy = stored.clone();
        HyperLogLog h = HyperLogLog.of(stored);
        byte[] x = b("zzz");
        h.add(x, 0, x.length, MAX);
        h.invalidateCache();
        assertArrayEquals(copy, stored);
        assertFalse(Arrays.equals(copy, h.bytes()));
    }

    @Test
    void handedOutArrayIsNeverWrittenAgain() {
        HyperLogLog h = with("a");
        assertTrue(h.toDense());
        byte[] first = h.bytes(); // exact length: the internal array itself
        byte[] copy = first.clone();
        byte[] x = b("another");
        assertEquals(1, h.add(x, 0, x.length, MAX));
        h.setCachedCard(5);
        assertArrayEquals(copy, first);
    }

    @Test
    void corruptedSparseIsDetected() {
        byte[] v = HyperLogLog.create().bytes();
        v[17] = 0; // XZERO of 16129 registers instead of 16384
        HyperLogLog h = HyperLogLog.of(v);
        assertEquals(-1, h.count());
        assertFalse(h.toDense());
        assertFalse(h.mergeInto(new byte[HyperLogLog.REGISTERS]));
        assertEquals(-1, h.sparseSet(16200, 1, MAX));
        assertFalse(HyperLogLog.isValid(new byte[] {'H', 'Y', 'L', 'L', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
        assertFalse(HyperLogLog.isValid(new byte[] {'H', 'Y', 'L', 'L', 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    }

    @Test
    void selfTestPasses() {
        assertEquals(null, HllSelfTest.run(3000));
    }
}
