package dev.spinel.server.durability;

import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.stats.DurationTotal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Who writes the log: under everysec the calling thread (an event loop) writes what is pending when it
 * asks to ({@link AofFile#writeNow}); what no loop writes, the writer thread writes within its period;
 * under always the writer thread writes, fsyncs and releases the replies waiting.
 */
class AofFileTest {
    private static final byte[] SET = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SELECT0 = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;

    private AofFile open(String fsync) throws Exception {
        return new AofFile(ServerConfig.defaults().with("appendfsync", fsync), dir.resolve("log.aof"), new DurationTotal());
    }

    private byte[] expected(int commands) {
        byte[] out = new byte[SELECT0.length + commands * SET.length];
        System.arraycopy(SELECT0, 0, out, 0, SELECT0.length);
        for (int i = 0; i < commands; i++) {
            System.arraycopy(SET, 0, out, SELECT0.length + i * SET.length, SET.length);
        }
        return out;
    }

    @Test
    @Timeout(10)
    void underEverysecTheCallerWritesWhatIsPendingAtOnce() throws Exception {
        try (AofFile log = open("everysec")) {
            long first = log.append(0, SET, 0, SET.length);
            long second = log.append(0, SET, 0, SET.length);
            assertTrue(log.writeNow(first), "written by the caller");
            assertTrue(log.acknowledged(second), "one write covers everything pending");
            assertArrayEquals(expected(2), Files.readAllBytes(dir.resolve("log.aof")));
        }
    }

    @Test
    @Timeout(10)
    void whatNoLoopWritesTheWriterThreadWrites() throws Exception {
        try (AofFile log = open("everysec")) {
            long position = log.append(0, SET, 0, SET.length); // an append from no connection (expiry, gRPC)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!log.acknowledged(position) && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertTrue(log.acknowledged(position));
            assertArrayEquals(expected(1), Files.readAllBytes(dir.resolve("log.aof")));
        }
    }

    @Test
    @Timeout(10)
    void underAlwaysTheWriterThreadWritesAndReleasesTheWaiters() throws Exception {
        try (AofFile log = open("always")) {
            long position = log.append(0, SET, 0, SET.length);
            CountDownLatch released = new CountDownLatch(1);
            log.whenAcknowledged(position, released::countDown);
            assertTrue(released.await(5, TimeUnit.SECONDS));
            assertEquals(expected(1).length, Files.size(dir.resolve("log.aof")));
        }
    }
}
