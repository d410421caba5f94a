package dev.spinel.persistence;

import com.sun.management.ThreadMXBean;
import dev.spinel.store.Database;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The copy-on-write copy of a snapshot is small: a writer running during BGSAVE touches every segment within
 * seconds, so every segment's copy is held at once (docs/benchmarks.md, "Peak memory during BGSAVE of 10M keys").
 * A key without a TTL costs the copy 17 bytes (entry, value snapshot, type; 8-byte references), not 32 (a codec
 * reference and an expiry for every key); and expiries still come out right when keys with and without TTLs share a copy, and
 * when a copy that held TTLs is reused for a segment that has none.
 */
class RdbWriterCopySizeTest {
    private static final int KEYS = 200_000;
    private static final byte[] VALUE = "v".repeat(32).getBytes(StandardCharsets.US_ASCII);

    private static int put(Database db, byte[] key, long expireAt) {
        int h = KeyHash.hash(key);
        Segment s = db.segment(h);
        s.lock();
        try {
            s.put(key, h, VALUE, expireAt);
        } finally {
            s.unlock();
        }
        return s.index();
    }

    @Test
    void everySegmentCopiedAtOnceCostsTwoReferencesAndABytePerKey() {
        Keyspace ks = new Keyspace(1);
        Database db = ks.db(0);
        for (int i = 0; i < KEYS; i++) {
            put(db, ("key:" + (1_000_000 + i)).getBytes(StandardCharsets.US_ASCII), -1);
        }
        RdbWriter writer = new RdbWriter(ValueCodecs.standard());
        RdbWriter.Options options = new RdbWriter.Options(true, true, RdbWriter.Access.NONE, Map.of());
        writer.write(ks, OutputStream.nullOutputStream(), options); // warm up: class loading
        RdbWriter.Snapshot snap = writer.snapshot(ks, RdbWriter.Access.NONE);
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < Database.SEGMENTS; i++) { // as writers touching every segment before the save reaches it
            Segment s = db.segmentAt(i);
            s.lock();
            try {
                s.capturePending();
            } finally {
                s.unlock();
            }
        }
        long perKey = (mx.getCurrentThreadAllocatedBytes() - before) / KEYS;
        assertEquals(KEYS, writer.write(snap, OutputStream.nullOutputStream(), options));
        // two references and a type byte per key, and an eighth of headroom per segment's copy: 19 B under ZGC
        // (8-byte references), 10 B with compressed ones; it was three references and a long (36 B, 22 B)
        long ref = referenceSize(mx);
        assertTrue(perKey < (2 * ref + 1) * 1.25 + 1, "the copy of every segment took " + perKey + " bytes per key (references of " + ref + " B)");
    }

    /** Bytes per element of an {@code Object[]}: 8 under ZGC, 4 with compressed references. */
    private static long referenceSize(ThreadMXBean mx) {
        long before = mx.getCurrentThreadAllocatedBytes();
        Object[] probe = new Object[1 << 20];
        long bytes = mx.getCurrentThreadAllocatedBytes() - before;
        assertEquals(1 << 20, probe.length);
        return Math.round((double) bytes / probe.length);
    }

    @Test
    void expiriesAreSavedWhetherOrNotACopyHoldsTtls() {
        Keyspace ks = new Keyspace(2);
        long future = System.currentTimeMillis() + 3_600_000;
        Map<String, Long> model = new HashMap<>();
        for (int i = 0; i < 40_000; i++) {
            int d = i % 2;
            byte[] key = ("k" + i).getBytes(StandardCharsets.US_ASCII);
            int h = KeyHash.hash(key);
            // segments 0, 3, 6...: every other key with a TTL (the copy starts without an expiry array and grows
            // one mid-chunk); the others none, and they reuse copies that held TTLs
            int seg = ks.db(d).segment(h).index();
            long at = seg % 3 == 0 && i % 4 < 2 ? future + i : -1;
            put(ks.db(d), key, at);
            model.put(d + ":k" + i, at);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RdbWriter writer = new RdbWriter(ValueCodecs.standard());
        assertEquals(model.size(), writer.write(ks, out, new RdbWriter.Options(false, true, RdbWriter.Access.NONE, Map.of())));
        Map<String, Long> saved = new HashMap<>();
        new RdbReader(ValueCodecs.standard(), 2).read(new ByteArrayInputStream(out.toByteArray()), (db, key, value, exp, idle, freq) ->
                saved.put(db + ":" + new String(key, StandardCharsets.US_ASCII), exp));
        assertEquals(model, saved);
    }
}
