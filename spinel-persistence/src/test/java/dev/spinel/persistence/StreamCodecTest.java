package dev.spinel.persistence;

import dev.spinel.store.types.CollectionSettings;
import dev.spinel.store.types.stream.StreamConsumer;
import dev.spinel.store.types.stream.StreamCursor;
import dev.spinel.store.types.stream.StreamGroup;
import dev.spinel.store.types.stream.StreamId;
import dev.spinel.store.types.stream.StreamNack;
import dev.spinel.store.types.stream.StreamValue;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The stream codec on its own: a stream with deleted entries, several nodes and groups survives a DUMP
 * payload round trip unchanged; and payloads corrupted at random (with a valid checksum, so the decoder
 * really reads them) either fail with an {@link RdbException} or decode to a stream that every operation
 * can walk and change without an exception: bad input never reaches the server as a crash.
 */
class StreamCodecTest {
    private static final CollectionSettings SMALL_NODES = new CollectionSettings() {
        @Override
        public long listMaxListpackSize() {
            return -2;
        }

        @Override
        public long hashMaxListpackEntries() {
            return 512;
        }

        @Override
        public long hashMaxListpackValue() {
            return 64;
        }

        @Override
        public long streamNodeMaxEntries() {
            return 5;
        }
    };

    private static StreamValue sample() {
        StreamValue s = new StreamValue(SMALL_NODES);
        Random r = new Random(1);
        for (int i = 1; i <= 40; i++) {
            byte[] buf = ("f" + (i % 7 == 0 ? "x" : "") + "value" + r.nextInt(100000) + "n" + (i * 1000)).getBytes(StandardCharsets.US_ASCII);
            // field "f" or "fx", value "value<n>", field "n", value "<i*1000>"
            int fl = i % 7 == 0 ? 2 : 1;
            int vEnd = buf.length - ("n" + (i * 1000)).length();
            int[] offLen = {0, fl, fl, vEnd - fl, vEnd, 1, vEnd + 1, buf.length - vEnd - 1};
            assertEquals(StreamValue.APPENDED, s.append(true, true, i, i % 3, 0, buf, offLen));
        }
        assertTrue(s.delete(7, 1));
        assertTrue(s.delete(12, 0));
        s.refreshFirstId();
        StreamGroup g = new StreamGroup(20, 2, 19);
        StreamConsumer c = new StreamConsumer("alice".getBytes(StandardCharsets.US_ASCII), 1_700_000_000_000L);
        g.consumers.put(c.name, c);
        for (int i = 15; i <= 20; i++) {
            StreamId id = new StreamId(i, i % 3);
            StreamNack n = new StreamNack(1_700_000_000_000L + i, i, c);
            g.pending.put(id, n);
            c.pending.put(id, n);
        }
        s.groups().put("grp".getBytes(StandardCharsets.US_ASCII), g);
        return s;
    }

    private static List<String> entries(StreamValue s, boolean rev) {
        List<String> out = new ArrayList<>();
        StreamCursor c = s.cursor(0, 0, -1L, -1L, rev);
        byte[] scratch = new byte[24];
        while (c.next()) {
            StringBuilder sb = new StringBuilder(c.id().toString());
            c.visitFields(scratch, (b, off, len) -> {
                sb.append(' ').append(new String(b, off, len, StandardCharsets.ISO_8859_1));
                return true;
            });
            out.add(sb.toString());
        }
        return out;
    }

    @Test
    void roundTripKeepsEntriesNodesAndGroups() {
        StreamValue s = sample();
        StreamCodec codec = new StreamCodec(SMALL_NODES);
        ValueCodecs codecs = new ValueCodecs();
        codecs.register(codec);
        byte[] payload = DumpPayload.create(codec, codec.snapshot(s));
        assertTrue(DumpPayload.verify(payload));
        StreamValue back = (StreamValue) DumpPayload.read(codecs, payload);
        assertEquals(entries(s, false), entries(back, false));
        assertEquals(entries(s, true), entries(back, true));
        assertEquals(38, back.size());
        assertEquals(s.nodeCount(), back.nodeCount());
        for (int i = 0; i < s.nodeCount(); i++) {
            assertArrayEquals(Arrays.copyOf(s.nodeBytes(i), s.nodeUsed(i)),
                    Arrays.copyOf(back.nodeBytes(i), back.nodeUsed(i)));
        }
        StreamGroup g = back.groups().get("grp".getBytes(StandardCharsets.US_ASCII));
        assertEquals(6, g.pending.size());
        assertEquals(19, g.entriesRead);
        assertEquals(1_700_000_000_015L, g.pending.firstEntry().getValue().deliveryTime);
        assertEquals(6, g.consumers.get("alice".getBytes(StandardCharsets.US_ASCII)).pending.size());
        assertArrayEquals(payload, DumpPayload.create(codec, codec.snapshot(back)));
    }

    @Test
    void corruptPayloadsFailCleanlyOrDecodeToAUsableStream() {
        StreamCodec codec = new StreamCodec(SMALL_NODES);
        ValueCodecs codecs = new ValueCodecs();
        codecs.register(codec);
        byte[] good = DumpPayload.create(codec, codec.snapshot(sample()));
        Random r = new Random(7);
        int refused = 0;
        int decoded = 0;
        for (int round = 0; round < 5000; round++) {
            byte[] p = good.clone();
            for (int k = 0, n = 1 + r.nextInt(3); k < n; k++) {
                int at = 1 + r.nextInt(p.length - 11);
                p[at] = r.nextInt(4) == 0 ? (byte) r.nextInt(256) : (byte) (p[at] ^ (1 << r.nextInt(8)));
            }
            reseal(p);
            Object v;
            try {
                v = DumpPayload.read(codecs, p);
            } catch (RdbException e) {
                refused++;
                continue;
            }
            decoded++;
            StreamValue s = (StreamValue) v;
            entries(s, false);
            entries(s, true);
            s.contains(15, 0);
            s.delete(20, 2);
            s.trim(true, 10, 0, 0, true, 0);
            byte[] buf = "fv".getBytes(StandardCharsets.US_ASCII);
            s.append(false, false, 0, 0, 5_000_000_000_000L, buf, new int[] {0, 1, 1, 1});
            s.trim(false, 0, 30, 0, false, 0);
            entries(s, false);
            DumpPayload.create(codec, codec.snapshot(s));
        }
        assertTrue(refused > 1000, "refused " + refused);
        assertTrue(decoded > 0, "decoded " + decoded);
    }

    /** A new footer checksum, so the decoder parses the corrupted body. */
    private static void reseal(byte[] p) {
        int footer = p.length - 10;
        long crc = Crc64.update(0, p, 0, footer + 2);
        for (int i = 0; i < 8; i++) {
            p[footer + 2 + i] = (byte) (crc >>> (8 * i));
        }
    }
}
