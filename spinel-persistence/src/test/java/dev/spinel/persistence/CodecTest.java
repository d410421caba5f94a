package dev.spinel.persistence;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CodecTest {
    @Test
    void crc64MatchesRedisCheckValue() {
        // The value asserted by Redis's own crc64 self-test.
        assertEquals(0xe9c6d914c4b8d9caL, Crc64.of("123456789".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(0, Crc64.of(new byte[0]));
    }

    @Test
    void lzfRoundTripsRepetitiveAndRandomData() {
        Random rnd = new Random(42);
        for (int round = 0; round < 500; round++) {
            int len = 1 + rnd.nextInt(round < 250 ? 200 : 20000);
            byte[] in = new byte[len];
            int alphabet = 1 + rnd.nextInt(round % 3 == 0 ? 255 : 4);
            for (int i = 0; i < len; i++) {
                in[i] = (byte) rnd.nextInt(alphabet);
            }
            byte[] out = new byte[len + len / 16 + 64];
            int n = Lzf.compress(in, len, out, out.length);
            assertTrue(n > 0, "fits with headroom");
            assertArrayEquals(in, Lzf.decompress(out, 0, n, len));
        }
    }

    @Test
    void lzfWithOneTableReusedAcrossInputsStillRoundTrips() {
        // Long inputs leave table entries pointing far ahead of a short input's positions: they must
        // never become back references.
        Random rnd = new Random(7);
        int[] table = Lzf.newTable();
        for (int round = 0; round < 2000; round++) {
            int len = 1 + rnd.nextInt(round % 2 == 0 ? 5000 : 60);
            byte[] in = new byte[len];
            int alphabet = 1 + rnd.nextInt(4);
            for (int i = 0; i < len; i++) {
                in[i] = (byte) rnd.nextInt(alphabet);
            }
            byte[] out = new byte[len + len / 16 + 64];
            int n = Lzf.compress(in, len, out, out.length, table);
            assertTrue(n > 0, "fits with headroom");
            assertArrayEquals(in, Lzf.decompress(out, 0, n, len), "round " + round);
        }
    }

    @Test
    void lzfCompressesRunsAndRespectsTheLimit() {
        byte[] in = "a".repeat(1000).getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[996];
        int n = Lzf.compress(in, in.length, out, out.length);
        assertTrue(n > 0 && n < 20, "run compressed to " + n);
        assertArrayEquals(in, Lzf.decompress(out, 0, n, in.length));
        byte[] random = new byte[100];
        new Random(1).nextBytes(random);
        assertEquals(0, Lzf.compress(random, random.length, new byte[96], 96));
    }

    @Test
    void lzfRejectsBadStreams() {
        assertThrows(IllegalArgumentException.class, () -> Lzf.decompress(new byte[] {(byte) 0x20, 5}, 0, 2, 10));
        assertThrows(IllegalArgumentException.class, () -> Lzf.decompress(new byte[] {3, 1, 2}, 0, 3, 4));
        assertThrows(IllegalArgumentException.class, () -> Lzf.decompress(new byte[] {0, 1}, 0, 2, 2));
    }

    @Test
    void stringEncodingsRoundTrip() {
        String[] samples = {"", "0", "-1", "127", "-128", "128", "32767", "-32768", "32768", "2147483647", "-2147483648",
                "2147483648", "007", "1 ", "12345678901", "9223372036854775807", "x".repeat(21), "abc".repeat(100),
                "not compressible at all 0123456789"};
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        RdbOutput out = new RdbOutput(bytes, true);
        for (String s : samples) {
            out.writeString(s.getBytes(StandardCharsets.US_ASCII));
        }
        out.flush();
        RdbInput in = new RdbInput(new ByteArrayInputStream(bytes.toByteArray()));
        for (String s : samples) {
            assertEquals(s, new String(in.readString(), StandardCharsets.US_ASCII));
        }
        assertTrue(in.atEnd());
    }

    @Test
    void integersUseTheCompactEncodings() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        RdbOutput out = new RdbOutput(bytes, false);
        out.writeString("-5".getBytes(StandardCharsets.US_ASCII));
        out.writeString("1000".getBytes(StandardCharsets.US_ASCII));
        out.writeString("100000".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        assertArrayEquals(new byte[] {(byte) 0xC0, -5, (byte) 0xC1, (byte) 0xE8, 0x03, (byte) 0xC2, (byte) 0xA0, (byte) 0x86, 0x01, 0},
                bytes.toByteArray());
    }

    @Test
    void lengthsUseAllWidths() {
        long[] lens = {0, 63, 64, 16383, 16384, 0xFFFFFFFFL, 0x100000000L};
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        RdbOutput out = new RdbOutput(bytes, false);
        for (long l : lens) {
            out.writeLength(l);
        }
        out.flush();
        RdbInput in = new RdbInput(new ByteArrayInputStream(bytes.toByteArray()));
        for (long l : lens) {
            assertEquals(l, in.readLength());
        }
    }

    @Test
    void dumpPayloadRoundTripsAndDetectsCorruption() {
        StringCodec codec = new StringCodec();
        byte[] p = DumpPayload.create(codec, "hello".getBytes(StandardCharsets.US_ASCII));
        // Redis 7.0: DUMP of "hello" is \x00\x05hello\x0a\x00 + crc.
        assertEquals(0, p[0]);
        assertEquals(5, p[1]);
        assertEquals(10, p[7]);
        assertEquals(0, p[8]);
        assertTrue(DumpPayload.verify(p));
        assertArrayEquals("hello".getBytes(StandardCharsets.US_ASCII), (byte[]) DumpPayload.read(ValueCodecs.standard(), p));
        p[3] ^= 1;
        assertTrue(!DumpPayload.verify(p));
    }
}
