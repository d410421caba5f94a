package dev.spinel.server.durability;

import dev.spinel.server.testing.RedisServerProcess;
import dev.spinel.server.testing.SpinelProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A dump.rdb whose hash ziplist fails the integrity check (an entry's prevlen is wrong): redis-server and Spinel
 * both refuse to start, saying "... Hash ziplist integrity check failed." (Redis twice: its line and
 * redis-check-rdb's; Spinel its line and the key's) and, once, "Terminating server after rdb file reading
 * failure.", which corrupt-dump.tcl's "load corrupted rdb with no CRC - #3505" counts.
 */
class CorruptRdbStartupLogTest {
    @TempDir
    Path dir;

    @Test
    void aCorruptZiplistStopsTheStartWithRedisWords() throws Exception {
        byte[] zl = {17, 0, 0, 0, 13, 0, 0, 0, 2, 0, 0, 1, 'f', 9, 1, 'v', (byte) 0xFF}; // prevlen 9: the first entry has 3 bytes
        ByteArrayOutputStream rdb = new ByteArrayOutputStream();
        rdb.writeBytes("REDIS0009".getBytes(StandardCharsets.US_ASCII));
        rdb.write(0xFE);
        rdb.write(0);
        rdb.write(13); // RDB_TYPE_HASH_ZIPLIST
        rdb.write(1);
        rdb.write('h');
        rdb.write(zl.length);
        rdb.writeBytes(zl);
        rdb.write(0xFF);
        rdb.writeBytes(new byte[8]); // no checksum
        Path redisDir = Files.createDirectories(dir.resolve("redis"));
        Path spinelDir = Files.createDirectories(dir.resolve("spinel"));
        Files.write(redisDir.resolve("dump.rdb"), rdb.toByteArray());
        Files.write(spinelDir.resolve("dump.rdb"), rdb.toByteArray());

        Path redisLog = redisDir.resolve("redis.log");
        Process redis = new ProcessBuilder(RedisServerProcess.executable(), "--port", Integer.toString(RedisServerProcess.freePort()),
                "--dir", redisDir.toString(), "--save", "", "--sanitize-dump-payload", "no")
                .redirectErrorStream(true).redirectOutput(redisLog.toFile()).start();
        assertTrue(redis.waitFor(30, TimeUnit.SECONDS), "redis-server refuses the file");
        Path log = spinelDir.resolve("spinel.log");
        Process spinel = new ProcessBuilder(SpinelProcess.command("--port",
                Integer.toString(RedisServerProcess.freePort()), "--dir", spinelDir.toString(), "--grpc-port", "0", "--save", ""))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(spinel.waitFor(60, TimeUnit.SECONDS), "Spinel refuses the file");
        assertEquals(1, spinel.exitValue());
        assertEquals(counts(redisLog), counts(log), Files.readString(log));
    }

    /** Lines saying "Terminating server after rdb file reading failure." and "Hash ziplist integrity check failed". */
    private static List<Integer> counts(Path log) throws IOException {
        int terminating = 0;
        int integrity = 0;
        for (String l : Files.readAllLines(log)) {
            terminating += l.contains("Terminating server after rdb file reading failure.") ? 1 : 0;
            integrity += l.contains("Hash ziplist integrity check failed") ? 1 : 0;
        }
        List<Integer> out = new ArrayList<>();
        out.add(terminating);
        out.add(integrity);
        return out;
    }
}
