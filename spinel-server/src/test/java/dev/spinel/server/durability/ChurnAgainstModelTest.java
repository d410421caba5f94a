package dev.spinel.server.durability;

import dev.spinel.persistence.RdbReader;
import dev.spinel.persistence.ValueCodecs;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.Await;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Heavy churn checked against a model (issue #15, "bad input and faults"): values of 1 B to 64 KB (log-uniform, so
 * every size class is hit), overwritten by SET, grown in place by APPEND, SETRANGE and SETBIT, deleted, over a few
 * hundred keys; a BGSAVE in the middle whose file must hold exactly the model as it was when the save began, while
 * the churn goes on; every key compared with the model at the end. Runs ~3 s; {@code -Dspinel.churn.seconds=N} runs
 * longer.
 */
class ChurnAgainstModelTest {
    private static final int KEYS = 300;
    /** Strings are kept below this by replacing them when an append would pass it. */
    private static final int MAX_LENGTH = 256 * 1024;

    @TempDir
    Path dir;

    private final Random rnd = new Random(Long.getLong("spinel.churn.seed", 64));
    private final Map<String, byte[]> model = new HashMap<>();

    private byte[] randomValue() {
        int len = (int) Math.min(65536, Math.round(Math.exp(rnd.nextDouble() * Math.log(65536))));
        byte[] v = new byte[Math.max(1, len)];
        rnd.nextBytes(v);
        return v;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String reply(RawClient c, byte[]... args) throws Exception {
        return new String(c.call(Arrays.asList(args)), StandardCharsets.ISO_8859_1);
    }

    private static String bulk(byte[] v) {
        return "$" + v.length + "\r\n" + new String(v, StandardCharsets.ISO_8859_1) + "\r\n";
    }

    /** One random write (or a checked read), applied to the server and the model alike. */
    private void step(RawClient c) throws Exception {
        String k = "churn:" + rnd.nextInt(KEYS);
        byte[] kb = b(k);
        byte[] old = model.get(k);
        int op = rnd.nextInt(100);
        if (op < 35 || (op < 55 && old != null && old.length > MAX_LENGTH)) {
            byte[] v = randomValue();
            assertEquals("+OK\r\n", reply(c, b("SET"), kb, v));
            model.put(k, v);
        } else if (op < 55) {
            byte[] v = randomValue();
            byte[] now = old == null ? v : concat(old, v);
            assertEquals(":" + now.length + "\r\n", reply(c, b("APPEND"), kb, v));
            model.put(k, now);
        } else if (op < 65) {
            byte[] v = randomValue();
            int offset = rnd.nextInt(old == null ? 1000 : old.length + 1000);
            byte[] now = Arrays.copyOf(old == null ? new byte[0] : old, Math.max(old == null ? 0 : old.length, offset + v.length));
            System.arraycopy(v, 0, now, offset, v.length);
            assertEquals(":" + now.length + "\r\n", reply(c, b("SETRANGE"), kb, b(Integer.toString(offset)), v));
            model.put(k, now);
        } else if (op < 72) {
            int bit = rnd.nextInt(old == null ? 8000 : old.length * 8 + 8000);
            int on = rnd.nextInt(2);
            byte[] now = Arrays.copyOf(old == null ? new byte[0] : old, Math.max(old == null ? 0 : old.length, bit / 8 + 1));
            int was = (now[bit / 8] >> (7 - bit % 8)) & 1;
            now[bit / 8] = (byte) (on == 1 ? now[bit / 8] | (1 << (7 - bit % 8)) : now[bit / 8] & ~(1 << (7 - bit % 8)));
            assertEquals(":" + was + "\r\n", reply(c, b("SETBIT"), kb, b(Integer.toString(bit)), b(Integer.toString(on))));
            model.put(k, now);
        } else if (op < 82) {
            assertEquals(":" + (old == null ? 0 : 1) + "\r\n", reply(c, b("DEL"), kb));
            model.remove(k);
        } else {
            assertEquals(old == null ? "$-1\r\n" : bulk(old), reply(c, b("GET"), kb), k);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Test
    @Timeout(600)
    void churnWithASnapshotInTheMiddleMatchesTheModel() throws Exception {
        long millis = 1000L * Long.getLong("spinel.churn.seconds", 3);
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("rdb-key-save-delay", "200"));
             RawClient c = new RawClient(s.port())) {
            long end = System.currentTimeMillis() + millis;
            long steps = 0;
            Map<String, byte[]> atSave = null;
            long stepsDuringSave = 0;
            while (System.currentTimeMillis() < end || atSave == null || s.persistence().bgsaveInProgress()) {
                step(c);
                steps++;
                if (atSave == null && System.currentTimeMillis() > end - millis / 2) {
                    atSave = new HashMap<>(model); // the model's arrays are replaced, never changed, on each write
                    assertEquals("+Background saving started\r\n", new String(c.call("BGSAVE"), StandardCharsets.US_ASCII));
                } else if (atSave != null && s.persistence().bgsaveInProgress()) {
                    stepsDuringSave++;
                }
            }
            assertTrue(stepsDuringSave > 0, "no write while the save ran");
            Await.waitFor(() -> !s.persistence().bgsaveInProgress(), "the save to end");
            Map<String, byte[]> saved = new HashMap<>();
            try (InputStream in = Files.newInputStream(dir.resolve("dump.rdb"))) {
                new RdbReader(ValueCodecs.standard(), 16).read(in, (db, key, value, exp, idle, freq) ->
                        saved.put(new String(key, StandardCharsets.ISO_8859_1), (byte[]) value));
            }
            assertEquals(atSave.keySet(), saved.keySet());
            List<String> differ = new ArrayList<>();
            for (Map.Entry<String, byte[]> e : atSave.entrySet()) {
                if (!Arrays.equals(e.getValue(), saved.get(e.getKey()))) {
                    differ.add(e.getKey());
                }
            }
            assertEquals(List.of(), differ, "keys saved with another value than at BGSAVE (" + steps + " steps)");
            assertEquals(":" + model.size() + "\r\n", new String(c.call("DBSIZE"), StandardCharsets.US_ASCII));
            for (Map.Entry<String, byte[]> e : model.entrySet()) {
                byte[] live = c.call(List.of(b("GET"), b(e.getKey())));
                assertArrayEquals(bulk(e.getValue()).getBytes(StandardCharsets.ISO_8859_1), live, e.getKey());
            }
        }
    }
}
