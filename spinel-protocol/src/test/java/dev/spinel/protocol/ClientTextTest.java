package dev.spinel.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ClientTextTest {
    private static byte[] roundTrip(byte[] b) {
        return ClientText.encode(ClientText.cString(b, 0, b.length));
    }

    @Test
    void anyBytesComeBackAsTheyWereUpToANul() {
        Random r = new Random(11);
        for (int i = 0; i < 20_000; i++) {
            byte[] b = new byte[r.nextInt(12)];
            r.nextBytes(b);
            int nul = 0;
            while (nul < b.length && b[nul] != 0) {
                nul++;
            }
            assertArrayEquals(Arrays.copyOf(b, nul), roundTrip(b), Arrays.toString(b));
        }
    }

    @Test
    void validUtf8IsReadAsText() {
        String text = "caf\u00e9 \u20ac \ud83d\ude00";
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        assertEquals(text, ClientText.cString(utf8, 0, utf8.length));
        assertArrayEquals(utf8, ClientText.encode(text));
    }

    @Test
    void invalidSequencesAreEscapedBytes() {
        // overlong, a UTF-16 surrogate, a truncated sequence, a lone continuation byte
        for (byte[] b : new byte[][] {{(byte) 0xc0, (byte) 0x80}, {(byte) 0xed, (byte) 0xa0, (byte) 0x80},
                {(byte) 0xe2, (byte) 0x82}, {(byte) 0x80}, {(byte) 0xf5, (byte) 0x80, (byte) 0x80, (byte) 0x80}}) {
            assertArrayEquals(b, roundTrip(b));
            assertEquals(b.length, ClientText.cString(b, 0, b.length).length());
        }
    }
}
