package dev.spinel.client.internal;

import dev.spinel.protocol.RespReader;
import dev.spinel.protocol.RespValue;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The incremental decoder against the complete-value {@link RespReader}, with input split at every byte. */
class RespDecoderTest {
    private static final String STREAM = String.join("",
            "+OK\r\n", "+PONG\r\n", "+QUEUED\r\n", "+hello world\r\n", "-ERR unknown command 'x'\r\n",
            ":0\r\n", ":-1\r\n", ":1023\r\n", ":1024\r\n", ":-9223372036854775807\r\n", ":9223372036854775807\r\n",
            "$5\r\nhello\r\n", "$0\r\n\r\n", "$-1\r\n", "$4\r\na\r\nb\r\n", "*-1\r\n", "*0\r\n",
            "*3\r\n$3\r\nfoo\r\n:42\r\n*2\r\n+a\r\n$-1\r\n",
            "_\r\n", "#t\r\n", "#f\r\n", ",3.5\r\n", ",inf\r\n", ",-inf\r\n", "(3492890328409238509324850943850943825024385\r\n",
            "=15\r\ntxt:Some string\r\n", "!21\r\nSYNTAX invalid syntax\r\n",
            "%2\r\n+first\r\n:1\r\n$6\r\nsecond\r\n*1\r\n:2\r\n", "~3\r\n:1\r\n:2\r\n:3\r\n",
            ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$3\r\nhi!\r\n",
            "*2\r\n*2\r\n*0\r\n%0\r\n~0\r\n");

    @Test
    void decodesEveryValueWhateverTheSplit() {
        byte[] bytes = STREAM.getBytes(StandardCharsets.UTF_8);
        String expected = render(readAll(bytes));
        for (int split = 0; split <= bytes.length; split++) {
            assertEquals(expected, render(decodeInTwo(bytes, split)), "split at " + split);
        }
    }

    @Test
    void decodesByteByByte() {
        byte[] bytes = STREAM.getBytes(StandardCharsets.UTF_8);
        RespDecoder d = new RespDecoder();
        ByteBuf buf = Unpooled.buffer();
        List<RespValue> out = new ArrayList<>();
        for (byte b : bytes) {
            buf.writeByte(b);
            for (RespValue v; (v = d.decode(buf)) != null; ) {
                out.add(v);
            }
            buf.discardReadBytes();
        }
        assertEquals(render(readAll(bytes)), render(out));
        assertEquals(0, buf.readableBytes());
    }

    @Test
    void dropsAttributesBeforeTheValue() {
        byte[] bytes = "|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.1923\r\n*2\r\n:2039123\r\n:9543892\r\n".getBytes(StandardCharsets.US_ASCII);
        for (int split = 0; split <= bytes.length; split++) {
            List<RespValue> got = decodeInTwo(bytes, split);
            assertEquals("[*[:2039123, :9543892]]", render(got), "split at " + split);
        }
    }

    @Test
    void largeBulkSplitAcrossManyReads() {
        byte[] payload = new byte[300_000];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) i;
        }
        ByteBuf all = Unpooled.buffer();
        all.writeBytes(("$" + payload.length + "\r\n").getBytes(StandardCharsets.US_ASCII)).writeBytes(payload).writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        RespDecoder d = new RespDecoder();
        ByteBuf buf = Unpooled.buffer();
        RespValue v = null;
        while (all.isReadable()) {
            buf.writeBytes(all, Math.min(1000, all.readableBytes()));
            RespValue got = d.decode(buf);
            if (got != null) {
                v = got;
            }
        }
        assertEquals(payload.length, ((RespValue.BulkString) v).value().length);
        assertEquals(Arrays.hashCode(payload), Arrays.hashCode(((RespValue.BulkString) v).value()));
    }

    @Test
    void rejectsGarbage() {
        assertThrows(ProtocolError.class, () -> new RespDecoder().decode(Unpooled.wrappedBuffer("?what\r\n".getBytes(StandardCharsets.US_ASCII))));
        assertThrows(ProtocolError.class, () -> new RespDecoder().decode(Unpooled.wrappedBuffer(":12x\r\n".getBytes(StandardCharsets.US_ASCII))));
        assertThrows(ProtocolError.class, () -> new RespDecoder().decode(Unpooled.wrappedBuffer("$3\r\nabcXY".getBytes(StandardCharsets.US_ASCII))));
        assertThrows(ProtocolError.class, () -> new RespDecoder().decode(Unpooled.wrappedBuffer("+OK\n".getBytes(StandardCharsets.US_ASCII))));
        assertNull(new RespDecoder().decode(Unpooled.wrappedBuffer("*2\r\n:1\r\n".getBytes(StandardCharsets.US_ASCII))));
    }

    private static List<RespValue> decodeInTwo(byte[] bytes, int split) {
        RespDecoder d = new RespDecoder();
        ByteBuf buf = Unpooled.buffer();
        List<RespValue> out = new ArrayList<>();
        buf.writeBytes(bytes, 0, split);
        for (RespValue v; (v = d.decode(buf)) != null; ) {
            out.add(v);
        }
        buf.writeBytes(bytes, split, bytes.length - split);
        for (RespValue v; (v = d.decode(buf)) != null; ) {
            out.add(v);
        }
        assertEquals(0, buf.readableBytes(), "everything consumed");
        return out;
    }

    private static List<RespValue> readAll(byte[] bytes) {
        RespReader r = new RespReader(bytes);
        List<RespValue> out = new ArrayList<>();
        while (r.hasMore()) {
            out.add(r.read());
        }
        return out;
    }

    /** A canonical text of values (records holding byte[] do not compare by content). */
    static String render(List<RespValue> values) {
        return values.stream().map(RespDecoderTest::render).collect(Collectors.joining(", ", "[", "]"));
    }

    static String render(RespValue v) {
        return switch (v) {
            case RespValue.BulkString b -> "$" + new String(b.value(), StandardCharsets.ISO_8859_1);
            case RespValue.Array a -> "*" + render(a.items());
            case RespValue.SetValue s -> "~" + render(s.items());
            case RespValue.MapValue m -> "%" + render(m.entries());
            case RespValue.Push p -> ">" + render(p.items());
            case RespValue.Integer i -> ":" + i.value();
            default -> v.toString();
        };
    }
}
