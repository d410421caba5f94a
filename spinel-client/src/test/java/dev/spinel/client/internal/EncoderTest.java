package dev.spinel.client.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Commands as RESP bytes: a String argument's length prefix counts UTF-8 bytes, whatever the guess. */
class EncoderTest {
    @ParameterizedTest
    @ValueSource(strings = {"", "k", "key:123", "caf\u00e9", "\u00e9", "\u65e5\u672c\u8a9e", "a\uD83D\uDE00b", "x\u0080"})
    void stringArgumentsAreLengthPrefixedUtf8(String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(expected("SET".getBytes(StandardCharsets.US_ASCII), utf8), encode("SET", s));
    }

    @Test
    void longNonAsciiStringAfterOtherArguments() {
        String s = "\u00e9".repeat(40_000); // 80,000 bytes: its length has more digits than its char count
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        ByteBuf buf = Unpooled.buffer(16);
        Encoder.encode(buf, new Object[]{"SET", "k", s});
        byte[] out = new byte[buf.readableBytes()];
        buf.readBytes(out);
        ByteArrayOutputStream want = new ByteArrayOutputStream();
        want.writeBytes("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$80000\r\n".getBytes(StandardCharsets.US_ASCII));
        want.writeBytes(utf8);
        want.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        assertArrayEquals(want.toByteArray(), out);
    }

    @Test
    void unpairedSurrogateBecomesOneQuestionMark() {
        // Netty and String.getBytes both write an unpaired surrogate as '?': one byte for one char.
        assertEquals("*1\r\n$2\r\na?\r\n", new String(encode("a\uD83D"), StandardCharsets.UTF_8));
    }

    private static byte[] encode(Object... args) {
        ByteBuf buf = Unpooled.buffer(4);
        Encoder.encode(buf, args);
        byte[] out = new byte[buf.readableBytes()];
        buf.readBytes(out);
        return out;
    }

    private static byte[] expected(byte[]... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (byte[] a : args) {
            out.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(a);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        return out.toByteArray();
    }
}
