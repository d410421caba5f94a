package dev.spinel.persistence;

import com.sun.management.ThreadMXBean;
import dev.spinel.store.Database;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A save allocates nothing per key: no array for a key held inline in its entry (10M keys made 320 MB of garbage,
 * which raised the process's RSS during BGSAVE above Redis's fork; docs/benchmarks.md, 2026-11-27 "load factor 2"),
 * and one segment's copy serves the next once written.
 */
class RdbWriterAllocationTest {
    private static final int KEYS = 200_000;

    @Test
    void savingAllocatesNothingPerKey() {
        Keyspace ks = new Keyspace(1);
        Database db = ks.db(0);
        byte[] value = "v".repeat(32).getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < KEYS; i++) {
            byte[] key = ("key:" + (1_000_000 + i)).getBytes(StandardCharsets.US_ASCII); // 11 bytes: inline
            int h = KeyHash.hash(key);
            Segment s = db.segment(h);
            s.lock();
            try {
                s.put(key, h, value, i % 2 == 0 ? -1 : Long.MAX_VALUE / 2);
            } finally {
                s.unlock();
            }
        }
        RdbWriter writer = new RdbWriter(ValueCodecs.standard());
        RdbWriter.Options options = new RdbWriter.Options(true, true, RdbWriter.Access.NONE, Map.of());
        OutputStream discard = OutputStream.nullOutputStream();
        writer.write(ks, discard, options); // warm up: class loading, LZF tables
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = mx.getCurrentThreadAllocatedBytes();
        long written = writer.write(ks, discard, options);
        long perKey = (mx.getCurrentThreadAllocatedBytes() - before) / KEYS;
        assertEquals(KEYS, written);
        // a key array per key cost 24 B, new parallel arrays per segment's copy 32 B more; the copy is now reused
        assertTrue(perKey < 8, "allocated " + perKey + " bytes per key");
    }
}
