package dev.spinel.server.durability;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import dev.spinel.server.testing.SpinelProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An RDB file holding empty collections (a set, a hash, a sorted set, a quicklist): redis-server and Spinel skip
 * those keys and log each ("rdbLoadObject skipping empty key: ...") and the count ("empty keys skipped: N"), which
 * corrupt-dump.tcl's "load corrupted rdb with empty keys" looks for.
 */
class EmptyKeysLoadLogTest {
    @TempDir
    Path dir;

    @Test
    void emptyCollectionsAreSkippedAndLoggedAsRedisDoes() throws Exception {
        ByteArrayOutputStream rdb = new ByteArrayOutputStream();
        rdb.writeBytes("REDIS0010".getBytes(StandardCharsets.US_ASCII));
        rdb.write(0xFE); // SELECTDB 0
        rdb.write(0);
        emptyKey(rdb, 2, "set");
        emptyKey(rdb, 4, "hash");
        emptyKey(rdb, 5, "zset");
        emptyKey(rdb, 14, "list_quicklist");
        rdb.write(0); // a string that is kept
        rdb.write(4);
        rdb.writeBytes("kept".getBytes(StandardCharsets.US_ASCII));
        rdb.write(1);
        rdb.write('v');
        rdb.write(0xFF);
        rdb.writeBytes(new byte[8]); // no checksum
        Path redisDir = Files.createDirectories(dir.resolve("redis"));
        Path spinelDir = Files.createDirectories(dir.resolve("spinel"));
        Files.write(redisDir.resolve("dump.rdb"), rdb.toByteArray());
        Files.write(spinelDir.resolve("dump.rdb"), rdb.toByteArray());

        TreeSet<String> redis;
        try (RedisServerProcess r = RedisServerProcess.start("--dir", redisDir.toString()); RawClient c = new RawClient(r.port())) {
            assertEquals(":1\r\n", c.callString("DBSIZE"));
            redis = lines(r.dir().resolve("redis.log"));
        }
        int port = RedisServerProcess.freePort();
        Path log = spinelDir.resolve("spinel.log");
        Process p = new ProcessBuilder(SpinelProcess.command("--port", Integer.toString(port),
                "--dir", spinelDir.toString(), "--grpc-port", "0", "--save", ""))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try (Socket s = new Socket("127.0.0.1", port); RawClient c = new RawClient(s)) {
                    String size = c.callString("DBSIZE");
                    if (!size.startsWith("-LOADING")) { // it listens while it loads, as Redis
                        assertEquals(":1\r\n", size);
                        break;
                    }
                    Thread.sleep(50);
                } catch (IOException notYet) {
                    assertTrue(System.nanoTime() < deadline && p.isAlive(), Files.readString(log));
                    Thread.sleep(100);
                }
            }
            assertEquals(redis, lines(log));
            assertEquals(5, redis.size(), redis.toString());
        } finally {
            p.destroy();
            p.waitFor(20, TimeUnit.SECONDS);
        }
    }

    private static void emptyKey(ByteArrayOutputStream rdb, int type, String key) {
        rdb.write(type);
        rdb.write(key.length());
        rdb.writeBytes(key.getBytes(StandardCharsets.US_ASCII));
        rdb.write(0); // no elements
    }

    /** The log's lines about empty keys, without the pid and time prefix. */
    private static TreeSet<String> lines(Path log) throws IOException {
        TreeSet<String> out = new TreeSet<>();
        for (String l : Files.readAllLines(log)) {
            int at = l.indexOf(" # ");
            if (at >= 0 && (l.contains("skipping empty key") || l.contains("empty keys skipped"))) {
                out.add(l.substring(at + 3));
            }
        }
        return out;
    }
}
