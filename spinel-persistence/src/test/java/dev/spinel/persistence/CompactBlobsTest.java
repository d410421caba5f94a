package dev.spinel.persistence;

import dev.spinel.store.types.CollectionSettings;
import dev.spinel.store.types.HashValue;
import dev.spinel.store.types.ListValue;
import dev.spinel.store.types.SetLimits;
import dev.spinel.store.types.ZSetValue;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The compact blobs Redis 7.0 no longer writes but still loads (ziplist, zipmap, quicklist of
 * ziplists), from the byte layouts documented in Redis's sources; and malformed blobs refused.
 */
class CompactBlobsTest {
    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    private static List<String> strings(List<byte[]> l) {
        return l.stream().map(b -> new String(b, StandardCharsets.ISO_8859_1)).toList();
    }

    /** A ziplist of the given raw entries (prevlen computed). */
    private static byte[] ziplist(String... entryHex) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int prev = 0;
        int tail = 10; // zltail: the last entry's offset (the header's end when empty)
        for (String e : entryHex) {
            byte[] body = hex(e);
            tail = 10 + b.size();
            if (prev < 254) {
                b.write(prev);
            } else {
                b.write(254);
                for (int i = 0; i < 4; i++) {
                    b.write(prev >>> (8 * i));
                }
            }
            b.writeBytes(body);
            prev = body.length + (prev < 254 ? 1 : 5);
        }
        byte[] entries = b.toByteArray();
        byte[] zl = new byte[10 + entries.length + 1];
        int total = zl.length;
        for (int i = 0; i < 4; i++) {
            zl[i] = (byte) (total >>> (8 * i));
        }
        for (int i = 0; i < 4; i++) {
            zl[4 + i] = (byte) (tail >>> (8 * i));
        }
        zl[8] = (byte) entryHex.length;
        System.arraycopy(entries, 0, zl, 10, entries.length);
        zl[total - 1] = (byte) 0xFF;
        return zl;
    }

    @Test
    void ziplistFromRedisDocumentation() {
        // ziplist.c: "[0f 00 00 00] [0c 00 00 00] [02 00] [00 f3] [02 f6] [ff]" holds 2 and 5.
        assertEquals(List.of("2", "5"), strings(CompactBlobs.ziplist(hex("0f000000 0c000000 0200 00f3 02f6 ff"))));
    }

    @Test
    void ziplistEveryEncoding() {
        String s300 = "a".repeat(300);
        byte[] zl = ziplist("0568656c6c6f", // 6-bit length string "hello"
                "412c" + HexFormat.of().formatHex(s300.getBytes(StandardCharsets.US_ASCII)), // 14-bit length string
                "c018fc", // int16 -1000
                "d000e1f505", // int32 100000000
                "e0ffffffffffffff7f", // int64 max
                "f0000080", // int24 -8388608
                "fe80", // int8 -128
                "f1", "fd"); // immediate 0 and 12
        assertEquals(List.of("hello", s300, "-1000", "100000000", "9223372036854775807", "-8388608", "-128", "0", "12"),
                strings(CompactBlobs.ziplist(zl)));
        byte[] bad = zl.clone();
        bad[8] = 3; // wrong count
        assertThrows(RdbException.class, () -> CompactBlobs.ziplist(bad));
        assertThrows(RdbException.class, () -> CompactBlobs.ziplist(Arrays.copyOf(zl, zl.length - 3)));
    }

    @Test
    void zipmapFromRedisDocumentation() {
        // zipmap.c: "\x02\x03foo\x03\x00bar\x05hello\x05\x00world\xff"
        byte[] zm = "\u0002\u0003foo\u0003\u0000bar\u0005hello\u0005\u0000world\u00ff".getBytes(StandardCharsets.ISO_8859_1);
        assertEquals(List.of("foo", "bar", "hello", "world"), strings(CompactBlobs.zipmap(zm)));
    }

    @Test
    void intsetAndListpackRoundTrip() {
        byte[] is = hex("04000000 03000000 f6ffffff 05000000 a0860100");
        assertEquals(List.of("-10", "5", "100000"), strings(CompactBlobs.intset(is)));
        CompactBlobs.ListpackBuilder b = new CompactBlobs.ListpackBuilder();
        List<String> in = List.of("", "x", "y".repeat(63), "y".repeat(64), "z".repeat(4095), "w".repeat(4096), "v".repeat(20000));
        for (String s : in) {
            b.add(s.getBytes(StandardCharsets.US_ASCII));
        }
        assertEquals(in, strings(CompactBlobs.listpack(b.build())));
        // listpack.c's integer encodings: 7-bit 5, 13-bit -1, int16 1000.
        byte[] lp = hex("10000000 0300 05 01 dfff 02 f1e803 03 ff");
        assertEquals(List.of("5", "-1", "1000"), strings(CompactBlobs.listpack(lp)));
    }

    private static RdbInput input(byte[]... strings) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        RdbOutput out = new RdbOutput(bytes, false);
        for (byte[] s : strings) {
            if (s.length == 1 && s[0] < 0) {
                out.writeLength(s[0] & 0x7F); // a length
            } else {
                out.writeLength(s.length);
                out.write(s);
            }
        }
        out.flush();
        return new RdbInput(new ByteArrayInputStream(bytes.toByteArray()));
    }

    @Test
    void oldCollectionTypesLoad() {
        SetLimits limits = new SetLimits();
        byte[] two = {(byte) 0x82};
        ListValue l = (ListValue) new ListCodec(CollectionSettings.DEFAULTS).read(Rdb.TYPE_LIST_QUICKLIST,
                input(two, ziplist("0161", "f2"), ziplist("0162")));
        assertEquals(3, l.length());
        assertArrayEquals("1".getBytes(), l.get(1));
        assertArrayEquals("b".getBytes(), l.get(2));
        HashValue h = (HashValue) new HashCodec(CollectionSettings.DEFAULTS).read(Rdb.TYPE_HASH_ZIPLIST,
                input(ziplist("0166", "0176", "0167", "fe07")));
        assertArrayEquals("7".getBytes(), h.get("g".getBytes(), 0, 1));
        ZSetValue z = (ZSetValue) new ZSetCodec(limits).read(Rdb.TYPE_ZSET_ZIPLIST,
                input(ziplist("016d", "03312e35", "016e", "f3")));
        assertEquals(1.5, z.score("m".getBytes()));
        assertEquals(2.0, z.score("n".getBytes()));
        assertThrows(RdbException.class, () -> new HashCodec(CollectionSettings.DEFAULTS).read(Rdb.TYPE_HASH_ZIPLIST,
                input(ziplist("0166", "0176", "0166", "0177"))), "duplicate field");
        assertThrows(RdbException.class, () -> new ZSetCodec(limits).read(Rdb.TYPE_ZSET_ZIPLIST,
                input(ziplist("016d", "036e616e"))), "NaN score");
    }
}
