package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Snapshots and DUMP payloads exchanged with a real redis-server: a dump.rdb written by Spinel's SAVE
 * passes redis-check-rdb and loads into Redis with the same contents (values, binary keys, absolute
 * expiries, several databases); Redis's dump.rdb loads into Spinel; DUMP from one RESTOREs into the other.
 */
class SnapshotInteropTest {
    @TempDir
    Path dir;

    /** The keys written by {@link #fill}: db, key. */
    record Key(int db, byte[] key) {
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static List<Key> fill(RawClient c) throws Exception {
        List<Key> keys = new ArrayList<>();
        Random rnd = new Random(3);
        long at = System.currentTimeMillis() + 7_200_000;
        for (int db : new int[] {0, 1, 9}) {
            assertEquals("+OK\r\n", new String(c.call("SELECT", Integer.toString(db)), StandardCharsets.ISO_8859_1));
            for (int i = 0; i < 300; i++) {
                byte[] key = i % 3 == 0 ? b("key" + i) : randomBytes(rnd, 1 + rnd.nextInt(30));
                byte[] value = switch (i % 5) {
                    case 0 -> b(Long.toString(rnd.nextLong()));
                    case 1 -> b(Integer.toString(rnd.nextInt(1000) - 500));
                    case 2 -> b("compress me ".repeat(1 + rnd.nextInt(300)));
                    case 3 -> randomBytes(rnd, rnd.nextInt(2000));
                    default -> b("");
                };
                c.call(List.of(b("SET"), key, value));
                if (i % 4 == 0) {
                    c.call(List.of(b("PEXPIREAT"), key, b(Long.toString(at + i))));
                }
                keys.add(new Key(db, key));
            }
        }
        c.call("SELECT", "0");
        return keys;
    }

    static byte[] randomBytes(Random rnd, int n) {
        byte[] x = new byte[n];
        rnd.nextBytes(x);
        return x;
    }

    /** GET and PEXPIRETIME of every key, plus each database's size, as one comparable string. */
    static String state(RawClient c, List<Key> keys) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (int db = 0; db < 16; db++) {
            c.call("SELECT", Integer.toString(db));
            sb.append(db).append(':').append(new String(c.call("DBSIZE"), StandardCharsets.ISO_8859_1));
        }
        for (Key k : keys) {
            c.call("SELECT", Integer.toString(k.db()));
            sb.append(HexFormat.of().formatHex(k.key())).append(' ')
                    .append(HexFormat.of().formatHex(c.call(List.of(b("GET"), k.key())))).append(' ')
                    .append(new String(c.call(List.of(b("PEXPIRETIME"), k.key())), StandardCharsets.ISO_8859_1)).append('\n');
        }
        c.call("SELECT", "0");
        return sb.toString();
    }

    private SpinelServer spinel(Path d, String file) {
        return SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", d.toString()).with("dbfilename", file));
    }

    @Test
    void redisLoadsWhatSpinelSaved() throws Exception {
        List<Key> keys;
        String expected;
        try (SpinelServer s = spinel(dir, "spinel.rdb"); RawClient c = new RawClient(s.port())) {
            keys = fill(c);
            expected = state(c, keys);
            assertEquals("+OK\r\n", c.callString("SAVE"));
        }
        Process check = new ProcessBuilder("redis-check-rdb", dir.resolve("spinel.rdb").toString()).redirectErrorStream(true).start();
        String report = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(check.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, check.exitValue(), report);
        try (RedisServerProcess redis = RedisServerProcess.start("--dir", dir.toString(), "--dbfilename", "spinel.rdb");
             RawClient c = new RawClient(redis.port())) {
            awaitLoaded(c);
            assertEquals(expected, state(c, keys));
        }
        // And Spinel itself restarts from the file with the same contents.
        try (SpinelServer s = spinel(dir, "spinel.rdb"); RawClient c = new RawClient(s.port())) {
            assertEquals(expected, state(c, keys));
        }
    }

    @Test
    void spinelLoadsWhatRedisSaved() throws Exception {
        List<Key> keys;
        String expected;
        try (RedisServerProcess redis = RedisServerProcess.start("--dir", dir.toString(), "--dbfilename", "redis.rdb");
             RawClient c = new RawClient(redis.port())) {
            keys = fill(c);
            expected = state(c, keys);
            assertEquals("+OK\r\n", c.callString("SAVE"));
        }
        try (SpinelServer s = spinel(dir, "redis.rdb"); RawClient c = new RawClient(s.port())) {
            assertEquals(expected, state(c, keys));
        }
    }

    @Test
    void dumpPayloadsMoveBothWays() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start();
             SpinelServer s = SpinelServer.startEphemeral();
             RawClient r = new RawClient(redis.port());
             RawClient sp = new RawClient(s.port())) {
            List<Key> keys = fill(r);
            fill(sp);
            for (Key k : keys) {
                r.call("SELECT", Integer.toString(k.db()));
                sp.call("SELECT", Integer.toString(k.db()));
                byte[] fromRedis = bulk(r.call(List.of(b("DUMP"), k.key())));
                byte[] fromSpinel = bulk(sp.call(List.of(b("DUMP"), k.key())));
                byte[] copy = b("copy");
                assertEquals("+OK\r\n", new String(sp.call(List.of(b("RESTORE"), copy, b("0"), fromRedis, b("REPLACE"))), StandardCharsets.ISO_8859_1));
                assertEquals("+OK\r\n", new String(r.call(List.of(b("RESTORE"), copy, b("0"), fromSpinel, b("REPLACE"))), StandardCharsets.ISO_8859_1));
                String original = HexFormat.of().formatHex(r.call(List.of(b("GET"), k.key())));
                assertEquals(original, HexFormat.of().formatHex(sp.call(List.of(b("GET"), copy))));
                assertEquals(original, HexFormat.of().formatHex(r.call(List.of(b("GET"), copy))));
            }
        }
    }

    /** The payload of a bulk reply {@code $n\r\n...\r\n}. */
    static byte[] bulk(byte[] reply) {
        int crlf = 0;
        while (reply[crlf] != '\r') {
            crlf++;
        }
        int n = Integer.parseInt(new String(reply, 1, crlf - 1, StandardCharsets.US_ASCII));
        byte[] out = new byte[n];
        System.arraycopy(reply, crlf + 2, out, 0, n);
        return out;
    }

    @Test
    void bgsaveAndSavePointsWriteInTheBackground() throws Exception {
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("save", "1 3")); RawClient c = new RawClient(s.port())) {
            Path file = dir.resolve("dump.rdb");
            c.call("SET", "a", "1");
            assertEquals("+Background saving started\r\n", c.callString("BGSAVE"));
            awaitNoBgsave(s);
            assertTrue(Files.exists(file));
            assertEquals(0, s.persistence().changesSinceLastSave());
            long last = Long.parseLong(c.callString("LASTSAVE").substring(1).strip());
            assertTrue(Math.abs(last - System.currentTimeMillis() / 1000) <= 2);
            // Three changes and a second later, the "save 1 3" point triggers a background save.
            Files.delete(file);
            c.call("SET", "b", "2");
            c.call("SET", "c", "3");
            assertEquals(2, s.persistence().changesSinceLastSave());
            Thread.sleep(1500);
            assertTrue(!Files.exists(file), "2 changes are below the save point");
            c.call("SET", "d", "4");
            long deadline = System.currentTimeMillis() + 10_000;
            while (!Files.exists(file) && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(Files.exists(file), "save point reached");
            awaitNoBgsave(s);
            StringBuilder info = new StringBuilder();
            s.persistence().appendInfo(info);
            assertTrue(info.toString().contains("rdb_changes_since_last_save:0\r\n"), info.toString());
            assertTrue(info.toString().contains("rdb_last_bgsave_status:ok\r\n"), info.toString());
        }
        // The file the schedule wrote holds all four keys.
        try (SpinelServer s = spinel(dir, "dump.rdb"); RawClient c = new RawClient(s.port())) {
            assertEquals(":4\r\n", c.callString("DBSIZE"));
        }
    }

    static void awaitNoBgsave(SpinelServer s) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 20_000;
        while (s.persistence().bgsaveInProgress() && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(!s.persistence().bgsaveInProgress());
    }

    @Test
    void aFailedBgsaveStopsWritesUntilASaveSucceeds() throws Exception {
        Path gone = Files.createDirectories(dir.resolve("gone"));
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", gone.toString())
                .with("save", "1000 1")); RawClient c = new RawClient(s.port())) {
            Files.delete(gone); // the configured directory disappears: the next save fails
            c.call("SET", "a", "1");
            assertEquals("+Background saving started\r\n", c.callString("BGSAVE"));
            awaitNoBgsave(s);
            String misconf = c.callString("SET", "b", "2");
            assertTrue(misconf.startsWith("-MISCONF Redis is configured to save RDB snapshots"), misconf);
            assertTrue(c.callString("PING").startsWith("-MISCONF"));
            assertEquals("$1\r\n1\r\n", c.callString("GET", "a"));
            assertEquals("-ERR\r\n", c.callString("SAVE"));
            s.config().with("dir", dir.toString());
            assertEquals("+OK\r\n", c.callString("SAVE"));
            assertEquals("+OK\r\n", c.callString("SET", "b", "2"));
            assertEquals("+PONG\r\n", c.callString("PING"));
        }
    }

    @Test
    void aCorruptDumpStopsTheStartWithTheReason() throws Exception {
        Files.write(dir.resolve("dump.rdb"), b("REDIS0010\u00fe\u0000\u0000\u0003key"));
        try {
            spinel(dir, "dump.rdb").close();
            throw new AssertionError("started from a truncated file");
        } catch (RuntimeException e) {
            assertTrue(e.getMessage().contains("Unexpected EOF"), e.getMessage());
        }
    }

    /** Waits until a just-started redis-server has loaded its files (it answers -LOADING until then). */
    static void awaitLoaded(RawClient c) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (new String(c.call("DBSIZE"), StandardCharsets.ISO_8859_1).startsWith("-LOADING") && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
    }
}
