package dev.spinel.client.internal;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/** Writes commands as RESP arrays of bulk strings into a buffer. Stateless. */
final class Encoder {
    private Encoder() {
    }

    static int estimate(Object[] args) {
        int n = 16;
        for (Object a : args) {
            n += 16 + (a instanceof byte[] b ? b.length : a instanceof String s ? s.length() : 20);
        }
        return n;
    }

    static void encode(ByteBuf out, Object[] args) {
        out.writeByte('*');
        writeDecimal(out, args.length);
        out.writeShort(0x0d0a);
        for (Object a : args) {
            out.writeByte('$');
            switch (a) {
                case byte[] b -> {
                    writeDecimal(out, b.length);
                    out.writeShort(0x0d0a);
                    out.writeBytes(b);
                }
                case String s -> writeString(out, s);
                case Long l -> writeNumber(out, l);
                case Integer i -> writeNumber(out, i); // an int that slipped in as an argument: the same digits
                default -> throw new IllegalArgumentException("unsupported argument type " + a.getClass());
            }
            out.writeShort(0x0d0a);
        }
    }

    /**
     * A string's length and UTF-8 bytes. Written in one pass on the guess that it is ASCII (the length is
     * then its char count); a string that is not takes more bytes than chars, which the write reports,
     * and is written again after counting. Counting first for every string was a second pass over each
     * key and value on the event loop (5% of its time in bulk SETs, profiled).
     */
    private static void writeString(ByteBuf out, String s) {
        int chars = s.length();
        int mark = out.writerIndex();
        writeDecimal(out, chars);
        out.writeShort(0x0d0a);
        if (ByteBufUtil.reserveAndWriteUtf8(out, s, ByteBufUtil.utf8MaxBytes(s)) == chars) {
            return;
        }
        out.writerIndex(mark);
        writeDecimal(out, ByteBufUtil.utf8Bytes(s));
        out.writeShort(0x0d0a);
        ByteBufUtil.writeUtf8(out, s);
    }

    private static void writeNumber(ByteBuf out, long v) {
        writeDecimal(out, decimalLength(v));
        out.writeShort(0x0d0a);
        writeDecimal(out, v);
    }

    static int decimalLength(long v) {
        if (v == Long.MIN_VALUE) {
            return 20;
        }
        int n = v < 0 ? 2 : 1;
        long x = Math.abs(v);
        while (x >= 10) {
            x /= 10;
            n++;
        }
        return n;
    }

    static void writeDecimal(ByteBuf out, long v) {
        if (v == Long.MIN_VALUE) {
            out.writeCharSequence("-9223372036854775808", StandardCharsets.US_ASCII);
            return;
        }
        if (v < 0) {
            out.writeByte('-');
            v = -v;
        }
        if (v < 10) {
            out.writeByte((int) ('0' + v));
            return;
        }
        int len = decimalLength(v);
        int at = out.writerIndex() + len;
        out.ensureWritable(len);
        for (int i = at - 1; i >= out.writerIndex(); i--) {
            out.setByte(i, (int) ('0' + v % 10));
            v /= 10;
        }
        out.writerIndex(at);
    }
}
