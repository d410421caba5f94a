package dev.spinel.server.replication;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ring: offsets as Redis counts them, wrap-around, what a PSYNC may continue from, resizing. */
class ReplicationBacklogTest {
    private static byte[] bytes(int from, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (from + i);
        }
        return b;
    }

    @Test
    void holdsTheLastCapacityBytesAcrossWrapAround() {
        ReplicationBacklog b = new ReplicationBacklog(16 * 1024, 100);
        assertEquals(101, b.firstByteOffset()); // empty: the next byte
        assertTrue(b.holdsFrom(101));
        assertFalse(b.holdsFrom(100));
        int total = 0;
        for (int i = 0; i < 50; i++) {
            byte[] chunk = bytes(total, 1000);
            b.append(chunk, 0, chunk.length);
            total += 1000;
        }
        assertEquals(100 + total, b.offset());
        assertEquals(16 * 1024, b.histlen());
        assertEquals(b.offset() - 16 * 1024 + 1, b.firstByteOffset());
        assertFalse(b.holdsFrom(b.firstByteOffset() - 1));
        assertTrue(b.holdsFrom(b.offset() + 1));
        assertFalse(b.holdsFrom(b.offset() + 2));
        // the bytes read back are the ones written at those offsets (byte at offset o was (o - 101) & 0xff)
        byte[] got = new byte[5000];
        long from = b.offset() - 4999;
        assertEquals(5000, b.copy(from, got, got.length));
        assertArrayEquals(bytes((int) (from - 101), 5000), got);
    }

    @Test
    void aChunkLargerThanTheRingKeepsItsTail() {
        ReplicationBacklog b = new ReplicationBacklog(16 * 1024, 0);
        byte[] big = bytes(0, 40_000);
        b.append(big, 0, big.length);
        assertEquals(40_000, b.offset());
        byte[] got = new byte[16 * 1024];
        assertEquals(got.length, b.copy(b.firstByteOffset(), got, got.length));
        assertArrayEquals(Arrays.copyOfRange(big, 40_000 - got.length, 40_000), got);
    }

    @Test
    void resizeKeepsTheNewestHistory() {
        ReplicationBacklog b = new ReplicationBacklog(64 * 1024, 0);
        byte[] data = "0123456789".repeat(5000).getBytes(StandardCharsets.US_ASCII);
        b.append(data, 0, data.length);
        b.resize(16 * 1024);
        assertEquals(50_000, b.offset());
        assertEquals(16 * 1024, b.histlen());
        byte[] got = new byte[16 * 1024];
        b.copy(b.firstByteOffset(), got, got.length);
        assertArrayEquals(Arrays.copyOfRange(data, data.length - got.length, data.length), got);
        b.append(data, 0, 10);
        assertEquals(50_010, b.offset());
    }
}
