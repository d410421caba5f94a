package dev.spinel.persistence;

import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Spinel's RDB files against the real tools: {@code redis-check-rdb} accepts what we write, a real
 * {@code redis-server} loads it and saves it again with the same contents, and we read the file
 * Redis wrote.
 */
class RdbInteropTest {
    @TempDir
    Path dir;

    /** key (hex) in db -> value (hex) and expiry, for comparing whole keyspaces. */
    record Item(String value, long expireAt) {
    }

    static Map<String, Item> contents(Path file, int databases) throws IOException {
        Map<String, Item> m = new HashMap<>();
        try (InputStream in = Files.newInputStream(file)) {
            new RdbReader(ValueCodecs.standard(), databases).read(in, (db, key, value, expireAt, idle, freq) ->
                    m.put(db + ":" + HexFormat.of().formatHex(key), new Item(HexFormat.of().formatHex((byte[]) value), expireAt)));
        }
        return m;
    }

    static Keyspace sample(Map<String, Item> expected) {
        Keyspace ks = new Keyspace(16);
        Random rnd = new Random(7);
        long soon = System.currentTimeMillis() + 3_600_000;
        for (int i = 0; i < 3000; i++) {
            int db = i % 3 == 0 ? 0 : i % 3 == 1 ? 5 : 15;
            byte[] key;
            byte[] value;
            switch (i % 6) {
                case 0 -> { key = ("key:" + i).getBytes(StandardCharsets.US_ASCII); value = Integer.toString(i - 1500).getBytes(StandardCharsets.US_ASCII); }
                case 1 -> { key = new byte[1 + rnd.nextInt(40)]; rnd.nextBytes(key); value = new byte[rnd.nextInt(300)]; rnd.nextBytes(value); }
                case 2 -> { key = Integer.toString(i).getBytes(StandardCharsets.US_ASCII); value = ("abcabc".repeat(1 + rnd.nextInt(500))).getBytes(StandardCharsets.US_ASCII); }
                case 3 -> { key = ("big:" + i).getBytes(StandardCharsets.US_ASCII); value = Long.toString(Long.MAX_VALUE - i).getBytes(StandardCharsets.US_ASCII); }
                case 4 -> { key = ("empty:" + i).getBytes(StandardCharsets.US_ASCII); value = new byte[0]; }
                default -> { key = ("k\r\n\0" + i).getBytes(StandardCharsets.ISO_8859_1); value = "x".repeat(20000).getBytes(StandardCharsets.US_ASCII); }
            }
            long exp = i % 4 == 0 ? soon + i : -1;
            int h = KeyHash.hash(key, 0, key.length);
            Segment seg = ks.db(db).segment(h);
            seg.lock();
            try {
                seg.put(key, h, value, exp);
            } finally {
                seg.unlock();
            }
            expected.put(db + ":" + HexFormat.of().formatHex(key), new Item(HexFormat.of().formatHex(value), exp));
        }
        return ks;
    }

    @Test
    void writerReaderRoundTripWithAndWithoutCompression() throws IOException {
        for (boolean compression : new boolean[] {true, false}) {
            Map<String, Item> expected = new HashMap<>();
            Keyspace ks = sample(expected);
            Path file = dir.resolve("rt-" + compression + ".rdb");
            RdbFiles.save(ks, file, new RdbWriter.Options(compression, true, RdbWriter.Access.NONE,
                    RdbWriter.Options.redisAux("7.0.15", 1000, false)));
            assertEquals(expected, contents(file, 16));
            Keyspace back = new Keyspace(16);
            KeyspaceLoader loader = new KeyspaceLoader(back, System.currentTimeMillis());
            assertTrue(RdbFiles.load(back, file, loader));
            assertEquals(expected.size(), loader.loaded());
            assertEquals(ks.db(5).size(), back.db(5).size());
        }
    }

    @Test
    void corruptFilesAreRefusedWithTheOffset() throws IOException {
        Map<String, Item> expected = new HashMap<>();
        Path file = dir.resolve("c.rdb");
        RdbFiles.save(sample(expected), file, new RdbWriter.Options(true, true, RdbWriter.Access.NONE, Map.of()));
        byte[] b = Files.readAllBytes(file);
        byte[] flipped = b.clone();
        flipped[b.length / 2] ^= 0x40;
        Files.write(file, flipped);
        RdbException e = org.junit.jupiter.api.Assertions.assertThrows(RdbException.class, () -> contents(file, 16));
        assertTrue(e.getMessage().contains("checksum") || e.getMessage().contains("offset"), e.getMessage());
        Files.write(file, Arrays.copyOf(b, b.length - 100));
        e = org.junit.jupiter.api.Assertions.assertThrows(RdbException.class, () -> contents(file, 16));
        assertTrue(e.getMessage().contains("Unexpected EOF"), e.getMessage());
    }

    /** Redis's rdb.tcl "Server should not start if RDB is corrupted" looks for "CRC error" in the log. */
    @Test
    void aWrongChecksumIsReportedInRedisWords() throws Exception {
        Path file = dir.resolve("dump.rdb");
        RdbFiles.save(sample(new HashMap<>()), file, new RdbWriter.Options(true, true, RdbWriter.Access.NONE,
                RdbWriter.Options.redisAux("7.0.15", 1000, false)));
        byte[] b = Files.readAllBytes(file);
        System.arraycopy("foobar00".getBytes(StandardCharsets.US_ASCII), 0, b, b.length - 8, 8);
        Files.write(file, b);
        Path log = dir.resolve("redis.log");
        Process redis = new ProcessBuilder("redis-server", "--port", Integer.toString(freePort()), "--dir", dir.toString(),
                "--dbfilename", "dump.rdb", "--save", "").redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(redis.waitFor(60, TimeUnit.SECONDS), "redis-server should refuse the file and exit");
        String redisLine = Files.readAllLines(log).stream().filter(l -> l.contains("Wrong RDB checksum")).findFirst().orElseThrow();
        RdbException e = org.junit.jupiter.api.Assertions.assertThrows(RdbException.class, () -> contents(file, 16));
        String[] lines = e.getMessage().split("\n");
        assertEquals(redisLine.substring(redisLine.indexOf("Wrong RDB")), lines[0]);
        assertTrue(lines[1].endsWith("-> RDB CRC error"), e.getMessage());
    }

    @Test
    void redisChecksLoadsAndRewritesOurFile() throws Exception {
        Map<String, Item> expected = new HashMap<>();
        Keyspace ks = sample(expected);
        Path file = dir.resolve("dump.rdb");
        RdbFiles.save(ks, file, new RdbWriter.Options(true, true, RdbWriter.Access.NONE,
                RdbWriter.Options.redisAux("7.0.15", 1000, false)));
        Process check = new ProcessBuilder("redis-check-rdb", file.toString()).redirectErrorStream(true).start();
        String report = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(check.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, check.exitValue(), report);
        assertTrue(report.contains("RDB looks OK"), report);

        int port = freePort();
        Process redis = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--dir", dir.toString(),
                "--dbfilename", "dump.rdb", "--save", "").redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        try {
            waitReady(port);
            assertEquals(Integer.toString(expected.size()), cli(port, "eval",
                    "local n=0 for i=0,15 do redis.call('select',i) n=n+redis.call('dbsize') end return n", "0"));
            assertEquals("OK", cli(port, "save"));
        } finally {
            redis.destroy();
            redis.waitFor(10, TimeUnit.SECONDS);
        }
        // Redis's own file, written from what it loaded, has exactly our contents.
        assertEquals(expected, contents(file, 16));
    }

    @Test
    void readsAFileRedisWrote() throws Exception {
        int port = freePort();
        Process redis = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--dir", dir.toString(),
                "--dbfilename", "redis.rdb", "--save", "").redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        try {
            waitReady(port);
            cli(port, "set", "small", "12");
            cli(port, "set", "neg", "-70000");
            cli(port, "set", "long", "y".repeat(5000));
            cli(port, "set", "text", "hello world");
            cli(port, "set", "ttl", "v", "px", "100000000");
            cli(port, "-n", "3", "set", "1234567890123", "in db 3");
            assertEquals("OK", cli(port, "save"));
        } finally {
            redis.destroy();
            redis.waitFor(10, TimeUnit.SECONDS);
        }
        Map<String, Item> m = contents(dir.resolve("redis.rdb"), 16);
        assertEquals(6, m.size());
        assertEquals(hex("12"), m.get("0:" + hex("small")).value());
        assertEquals(hex("-70000"), m.get("0:" + hex("neg")).value());
        assertEquals(hex("y".repeat(5000)), m.get("0:" + hex("long")).value());
        assertEquals(hex("in db 3"), m.get("3:" + hex("1234567890123")).value());
        long exp = m.get("0:" + hex("ttl")).expireAt();
        assertTrue(Math.abs(exp - (System.currentTimeMillis() + 100000000)) < 60_000, "expiry " + exp);
        assertEquals(-1, m.get("0:" + hex("text")).expireAt());
    }

    static String hex(String s) {
        return HexFormat.of().formatHex(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static String cli(int port, String... args) throws Exception {
        String[] cmd = new String[args.length + 3];
        cmd[0] = "redis-cli";
        cmd[1] = "-p";
        cmd[2] = Integer.toString(port);
        System.arraycopy(args, 0, cmd, 3, args.length);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }

    static void waitReady(int port) throws Exception {
        long deadline = System.currentTimeMillis() + 20_000;
        while (System.currentTimeMillis() < deadline) {
            if ("PONG".equals(cli(port, "ping"))) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("redis-server did not start on " + port);
    }
}
