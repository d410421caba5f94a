package dev.spinel.server.durability;

import dev.spinel.persistence.RdbReader;
import dev.spinel.persistence.ValueCodecs;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.store.TypedValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * BGSAVE gives a point-in-time image: while a client keeps rewriting 100 pairs of keys (in different
 * stripes) with one MSET each, every file saved holds each pair with equal values, i.e. no MSET appears
 * half-applied. The second test does the same at a size where copying everything at once would pause
 * writers (300k keys) and with collections (streams too) changed in place by transactions.
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

    @Test
    @Timeout(180)
    void largeKeyspaceWithCollectionsIsPointInTime() throws Exception {
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("enable-debug-command", "yes"));
             RawClient c = new RawClient(s.port()); RawClient w = new RawClient(s.port())) {
            assertEquals("+OK\r\n", c.callString("DEBUG", "POPULATE", "300000", "filler", "16"));
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = new Thread(() -> {
                try {
                    // Each transaction adds one element to a list, a set, a hash, a sorted set and a stream
                    // and counts it in a string: in every image all six must agree.
                    for (long round = 1; !stop.get(); round++) {
                        String r = Long.toString(round);
                        w.call("MULTI");
                        w.call("RPUSH", "tx:list", r);
                        w.call("SADD", "tx:set", r);
                        w.call("HSET", "tx:hash", r, r);
                        w.call("ZADD", "tx:zset", r, r);
                        w.call("XADD", "tx:stream", r + "-1", "n", r);
                        w.call("SET", "tx:count", r);
                        w.call("EXEC");
                    }
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            writer.start();
            try {
                int checked = 0;
                for (int save = 0; save < 6; save++) {
                    Thread.sleep(50);
                    assertEquals("+Background saving started\r\n", c.callString("BGSAVE"));
                    while (s.persistence().bgsaveInProgress()) {
                        Thread.sleep(5);
                    }
                    Map<String, Long> sizes = new HashMap<>();
                    long[] fillers = new long[1];
                    try (InputStream in = Files.newInputStream(dir.resolve("dump.rdb"))) {
                        new RdbReader(ValueCodecs.standard(), 16).read(in, (db, key, value, exp, idle, freq) -> {
                            String k = new String(key, StandardCharsets.ISO_8859_1);
                            if (k.startsWith("filler:")) {
                                fillers[0]++;
                            } else if (k.equals("tx:count")) {
                                sizes.put(k, Long.parseLong(new String((byte[]) value, StandardCharsets.ISO_8859_1)));
                            } else if (k.startsWith("tx:")) {
                                sizes.put(k, ((TypedValue) value).size());
                            }
                        });
                    }
                    assertEquals(300_000, fillers[0]);
                    if (sizes.isEmpty()) {
                        continue;
                    }
                    assertEquals(6, sizes.size(), sizes.toString());
                    assertEquals(1, sizes.values().stream().distinct().count(), "one state per image: " + sizes);
                    checked++;
                }
                assertTrue(checked >= 3, "images taken while the transactions ran: " + checked);
            } finally {
                stop.set(true);
                writer.join();
            }
        }
    }

    /**
     * SWAPDB moves whole databases under every stripe while saves and log rewrites run (so two snapshots
     * can be armed on a segment at once): every image holds database 0 and 1 each wholly one side.
     */
    @Test
    @Timeout(180)
    void swapdbDuringSavesAndRewritesNeverMixesDatabases() throws Exception {
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("enable-debug-command", "yes").with("appendonly", "yes"));
             RawClient c = new RawClient(s.port()); RawClient w = new RawClient(s.port())) {
            assertEquals("+OK\r\n", c.callString("DEBUG", "POPULATE", "20000", "a"));
            c.call("SELECT", "1");
            assertEquals("+OK\r\n", c.callString("DEBUG", "POPULATE", "30000", "b"));
            c.call("SELECT", "0");
            AtomicBoolean stop = new AtomicBoolean();
            Thread swapper = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        w.call("SWAPDB", "0", "1");
                    }
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            swapper.start();
            try {
                for (int save = 0; save < 5; save++) {
                    c.call("BGREWRITEAOF");
                    assertEquals("+Background saving started\r\n", c.callString("BGSAVE"));
                    while (s.persistence().bgsaveInProgress()) {
                        Thread.sleep(5);
                    }
                    Map<Integer, Set<Character>> prefixes = new HashMap<>();
                    Map<Integer, Integer> counts = new HashMap<>();
                    try (InputStream in = Files.newInputStream(dir.resolve("dump.rdb"))) {
                        new RdbReader(ValueCodecs.standard(), 16).read(in, (db, key, value, exp, idle, freq) -> {
                            prefixes.computeIfAbsent(db, d -> new HashSet<>()).add((char) key[0]);
                            counts.merge(db, 1, Integer::sum);
                        });
                    }
                    assertEquals(1, prefixes.get(0).size(), "db 0 mixes both sides: " + prefixes);
                    assertEquals(1, prefixes.get(1).size(), "db 1 mixes both sides: " + prefixes);
                    assertTrue(!prefixes.get(0).equals(prefixes.get(1)), prefixes.toString());
                    assertEquals(prefixes.get(0).contains('a') ? 20000 : 30000, counts.get(0));
                }
            } finally {
                stop.set(true);
                swapper.join();
            }
            while (c.callString("INFO", "persistence").contains("aof_rewrite_in_progress:1")) {
                Thread.sleep(5);
            }
            String before = c.callString("DBSIZE");
            c.call("SELECT", "1");
            String before1 = c.callString("DBSIZE");
            s.close();
            try (SpinelServer again = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                    .with("appendonly", "yes")); RawClient r = new RawClient(again.port())) {
                assertEquals(before, r.callString("DBSIZE"));
                r.call("SELECT", "1");
                assertEquals(before1, r.callString("DBSIZE"));
            }
        }
    }
}
