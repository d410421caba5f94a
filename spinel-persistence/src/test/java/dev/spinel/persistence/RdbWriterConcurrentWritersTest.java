package dev.spinel.persistence;

import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A snapshot written while writers overwrite, delete and add keys from other threads holds exactly the
 * keyspace as it was when armed: writers copy the chunks they touch first, the save thread copies the rest.
 */
class RdbWriterConcurrentWritersTest {
    private static final int KEYS = 60_000;

    private static void write(Database db, byte[] key, byte[] value, boolean delete) {
        int h = KeyHash.hash(key);
        Segment s = db.segment(h);
        s.lock();
        try {
            Entry e = s.get(key, 0, key.length, h, System.currentTimeMillis());
            if (delete) {
                s.remove(key, 0, key.length, h);
            } else if (e != null) {
                s.replaceValue(e, value); // in place, as SET of an existing key does
            } else {
                s.put(key, h, value, -1);
            }
        } finally {
            s.unlock();
        }
    }

    @Test
    @Timeout(60)
    void savedImageIsTheArmedStateWhileWritersRun() throws Exception {
        Keyspace ks = new Keyspace(2);
        Map<String, String> armed = new HashMap<>();
        for (int i = 0; i < KEYS; i++) {
            int d = i % 2;
            write(ks.db(d), ("k" + i).getBytes(StandardCharsets.ISO_8859_1), "before".getBytes(StandardCharsets.ISO_8859_1), false);
            armed.put(d + ":k" + i, "before");
        }
        RdbWriter writer = new RdbWriter(ValueCodecs.standard());
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch armedLatch = new CountDownLatch(1);
        Thread[] writers = new Thread[2];
        for (int w = 0; w < writers.length; w++) {
            int id = w;
            writers[w] = new Thread(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                try {
                    armedLatch.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int n = 0; !stop.get() || n < 50_000; n++) {
                    int i = rnd.nextInt(KEYS);
                    String key = rnd.nextInt(8) == 0 ? "new" + id + ":" + n : "k" + i;
                    write(ks.db(i % 2), key.getBytes(StandardCharsets.ISO_8859_1), ("after" + n).getBytes(StandardCharsets.ISO_8859_1),
                            rnd.nextInt(4) == 0);
                }
            });
            writers[w].start();
        }
        RdbWriter.Snapshot snap = writer.snapshot(ks, RdbWriter.Access.NONE);
        armedLatch.countDown(); // writers race the save from the first moment
        Thread.sleep(2);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long keys = writer.write(snap, out, new RdbWriter.Options(false, true, RdbWriter.Access.NONE, Map.of()));
        stop.set(true);
        for (Thread t : writers) {
            t.join();
        }
        Map<String, String> saved = new HashMap<>();
        new RdbReader(ValueCodecs.standard(), 2).read(new ByteArrayInputStream(out.toByteArray()), (db, key, value, exp, idle, freq) ->
                saved.put(db + ":" + new String(key, StandardCharsets.ISO_8859_1), new String((byte[]) value, StandardCharsets.ISO_8859_1)));
        assertEquals(KEYS, keys);
        assertEquals(armed.size(), saved.size());
        assertEquals(armed, saved);
    }
}
