package dev.spinel.server.persistence;

import dev.spinel.persistence.RdbReader;
import dev.spinel.persistence.ValueCodecs;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * BGSAVE gives a point-in-time image: while a client keeps rewriting 100 pairs of keys (in different
 * stripes) with one MSET each, every file saved holds each pair with equal values, i.e. no MSET appears
 * half-applied.
 */
class SnapshotPointInTimeTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void noMultiKeyWriteIsHalfApplied() throws Exception {
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString()));
             RawClient c = new RawClient(s.port()); RawClient w = new RawClient(s.port())) {
            for (int i = 0; i < 20_000; i++) {
                c.call("SET", "filler:" + i, "x");
            }
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = new Thread(() -> {
                try {
                    for (long round = 0; !stop.get(); round++) {
                        String[] mset = new String[201];
                        mset[0] = "MSET";
                        for (int p = 0; p < 100; p++) {
                            mset[1 + 2 * p] = "pair:" + p + ":a" + (p % 2 == 0 ? "" : ":b");
                            mset[2 + 2 * p] = Long.toString(round);
                        }
                        w.call(mset);
                    }
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            writer.start();
            try {
                for (int save = 0; save < 15; save++) {
                    assertEquals("+Background saving started\r\n", c.callString("BGSAVE"));
                    while (s.persistence().bgsaveInProgress()) {
                        Thread.sleep(5);
                    }
                    Map<String, String> m = new HashMap<>();
                    try (InputStream in = Files.newInputStream(dir.resolve("dump.rdb"))) {
                        new RdbReader(ValueCodecs.standard(), 16).read(in, (db, key, value, exp, idle, freq) -> {
                            String k = new String(key, StandardCharsets.ISO_8859_1);
                            if (k.startsWith("pair:")) {
                                m.put(k, new String((byte[]) value, StandardCharsets.ISO_8859_1));
                            }
                        });
                    }
                    assertTrue(m.size() == 0 || m.size() == 100, "pairs: " + m.size());
                    if (m.isEmpty()) {
                        continue; // saved before the first MSET
                    }
                    assertEquals(1, m.values().stream().distinct().count(), "one MSET per image: " + m.values().stream().distinct().toList());
                }
            } finally {
                stop.set(true);
                writer.join();
            }
        }
    }
}
