package dev.spinel.server.commands;

import dev.spinel.protocol.RespReader;
import dev.spinel.protocol.RespValue;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SCAN's guarantee: a full iteration returns every key that was present from its start to its end,
 * even while other keys are inserted and deleted and the tables grow and shrink between calls.
 */
class ScanConsistencyTest {

    @Test
    void fullScanSurvivesGrowthAndShrinkBetweenSteps() {
        Keyspace ks = new Keyspace(1);
        Database db = ks.db(0);
        Set<String> stable = new HashSet<>();
        for (int i = 0; i < 2000; i++) {
            put(db, "stable:" + i);
            stable.add("stable:" + i);
        }
        Set<String> seen = new HashSet<>();
        long cursor = 0;
        int step = 0;
        do {
            cursor = db.scan(cursor, 7, e -> seen.add(new String(e.key(), StandardCharsets.UTF_8)));
            step++;
            // Alternate growth (tables double several times) and shrink (tables halve several times).
            if (step % 20 == 5) {
                for (int i = 0; i < 20_000; i++) {
                    put(db, "churn:" + i);
                }
            } else if (step % 20 == 15) {
                for (int i = 0; i < 20_000; i++) {
                    remove(db, "churn:" + i);
                }
            }
        } while (cursor != 0);
        assertTrue(step > 40, "several grow/shrink rounds happened during the scan");
        Set<String> missing = new HashSet<>(stable);
        missing.removeAll(seen);
        assertEquals(Set.of(), missing);
    }

    @Test
    void fullScanWhileAnotherClientWrites() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral();
             RawClient scanner = new RawClient(server.port());
             RawClient writer = new RawClient(server.port())) {
            Set<String> stable = new HashSet<>();
            for (int i = 0; i < 3000; i++) {
                scanner.send(args("SET", "stable:" + i, "v"));
                stable.add("stable:" + i);
            }
            for (int i = 0; i < 3000; i++) {
                scanner.readReply();
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger rounds = new AtomicInteger();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        int n = 5000;
                        for (int i = 0; i < n; i++) {
                            writer.send(args("SET", "churn:" + i, "v"));
                        }
                        for (int i = 0; i < n; i++) {
                            writer.readReply();
                        }
                        for (int i = 0; i < n; i++) {
                            writer.send(args("DEL", "churn:" + i));
                        }
                        for (int i = 0; i < n; i++) {
                            writer.readReply();
                        }
                        rounds.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            }, "scan-test-writer");
            t.start();
            try {
                int scans = 0;
                while (scans < 3 || rounds.get() < 3) {
                    Set<String> seen = fullScan(scanner);
                    Set<String> missing = new HashSet<>(stable);
                    missing.removeAll(seen);
                    assertEquals(Set.of(), missing, "keys missed by scan " + scans);
                    scans++;
                }
            } finally {
                stop.set(true);
                t.join();
            }
            assertNull(failure.get());
        }
    }

    private static Set<String> fullScan(RawClient c) throws Exception {
        Set<String> seen = new HashSet<>();
        String cursor = "0";
        do {
            RespValue.Array reply = (RespValue.Array) new RespReader(c.call("SCAN", cursor, "COUNT", "5")).read();
            cursor = new String(((RespValue.BulkString) reply.items().get(0)).value(), StandardCharsets.US_ASCII);
            for (RespValue k : ((RespValue.Array) reply.items().get(1)).items()) {
                seen.add(new String(((RespValue.BulkString) k).value(), StandardCharsets.UTF_8));
            }
        } while (!cursor.equals("0"));
        return seen;
    }

    private static void put(Database db, String k) {
        byte[] key = k.getBytes(StandardCharsets.UTF_8);
        int h = KeyHash.hash(key);
        Segment seg = db.segment(h);
        seg.lock();
        try {
            seg.put(key, h, key, -1);
        } finally {
            seg.unlock();
        }
    }

    private static void remove(Database db, String k) {
        byte[] key = k.getBytes(StandardCharsets.UTF_8);
        int h = KeyHash.hash(key);
        Segment seg = db.segment(h);
        seg.lock();
        try {
            Entry e = seg.find(key, 0, key.length, h);
            if (e != null) {
                seg.removeEntry(e);
            }
        } finally {
            seg.unlock();
        }
    }

    private static List<byte[]> args(String... a) {
        return Arrays.stream(a).map(s -> s.getBytes(StandardCharsets.UTF_8)).toList();
    }
}
