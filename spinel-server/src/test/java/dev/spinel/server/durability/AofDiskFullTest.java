package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The disk under the append-only log fills up (a channel that fails like ENOSPC, after one short
 * write): the write in flight is not acknowledged, later writes get Redis's
 * {@code MISCONF Errors writing to the AOF file: No space left on device}, reads keep working, and
 * when space comes back the withheld reply arrives, writes are accepted again, and a restart finds
 * every acknowledged write with a log that loads cleanly.
 */
class AofDiskFullTest {
    @TempDir
    Path dir;

    @BeforeEach
    void failingDisk() {
        FullDiskChannel.full(false);
        AofFile.opener = p -> new FullDiskChannel(AofFile.openForAppend(p));
    }

    @AfterEach
    void realDisk() {
        FullDiskChannel.full(false);
        AofFile.opener = AofFile::openForAppend;
    }

    private SpinelServer start(String fsync) {
        return SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", "yes").with("appendfsync", fsync));
    }

    @ParameterizedTest
    @ValueSource(strings = {"always", "everysec"})
    @Timeout(60)
    void writesAreRefusedWhileTheDiskIsFullAndResumeAfter(String fsync) throws Exception {
        try (SpinelServer s = start(fsync); RawClient writer = new RawClient(s.port()); RawClient other = new RawClient(s.port())) {
            assertEquals("+OK\r\n", writer.callString("SET", "before", "1"));
            FullDiskChannel.full(true);
            writer.send(List.of("SET".getBytes(), "during".getBytes(), "x".repeat(200).getBytes()));
            CompletableFuture<String> withheld = CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(writer.readReply());
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            // INFO is not a write, so it is answered while the log is failing.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!other.callString("INFO", "persistence").contains("aof_last_write_status:err\r\n")) {
                assertTrue(System.nanoTime() < deadline, "the failed write was not reported");
                Thread.sleep(10);
            }
            assertEquals("-MISCONF Errors writing to the AOF file: No space left on device\r\n", other.callString("SET", "refused", "1"));
            assertEquals("$1\r\n1\r\n", other.callString("GET", "before"));
            assertFalse(withheld.isDone(), "a write that is not in the log must not be acknowledged");

            FullDiskChannel.full(false);
            assertEquals("+OK\r\n", withheld.get(10, TimeUnit.SECONDS));
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            String again;
            do {
                again = other.callString("SET", "after", "2");
                Thread.sleep(20);
            } while (!again.equals("+OK\r\n") && System.nanoTime() < deadline);
            assertEquals("+OK\r\n", again);
            assertTrue(other.callString("INFO", "persistence").contains("aof_last_write_status:ok\r\n"));
        }
        AofFile.opener = AofFile::openForAppend;
        try (SpinelServer s = start(fsync); RawClient c = new RawClient(s.port())) {
            assertEquals("$1\r\n1\r\n", c.callString("GET", "before"));
            assertEquals("$200\r\n" + "x".repeat(200) + "\r\n", c.callString("GET", "during"));
            assertEquals("$1\r\n2\r\n", c.callString("GET", "after"));
            assertEquals("$-1\r\n", c.callString("GET", "refused"));
        }
    }

    /**
     * Under {@code always}, a client served from BLPOP by another client's push gets its element only
     * once its pop is in the log: with the disk full, neither the pusher nor the served client hears back.
     */
    @org.junit.jupiter.api.Test
    @Timeout(60)
    void aServedBlockedClientIsAnsweredOnlyOnceItsPopIsLogged() throws Exception {
        try (SpinelServer s = start("always"); RawClient waiter = new RawClient(s.port());
             RawClient pusher = new RawClient(s.port()); RawClient other = new RawClient(s.port())) {
            waiter.send(List.of("BLPOP".getBytes(), "queue".getBytes(), "0".getBytes()));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!other.callString("INFO", "clients").contains("blocked_clients:1\r\n")) {
                assertTrue(System.nanoTime() < deadline, "BLPOP did not block");
                Thread.sleep(10);
            }
            FullDiskChannel.full(true);
            pusher.send(List.of("RPUSH".getBytes(), "queue".getBytes(), "job".getBytes()));
            CompletableFuture<String> popped = CompletableFuture.supplyAsync(() -> read(waiter));
            CompletableFuture<String> pushed = CompletableFuture.supplyAsync(() -> read(pusher));
            while (!other.callString("INFO", "persistence").contains("aof_last_write_status:err\r\n")) {
                assertTrue(System.nanoTime() < deadline, "the failed write was not reported");
                Thread.sleep(10);
            }
            Thread.sleep(200);
            assertFalse(pushed.isDone(), "push acknowledged before it was logged");
            assertFalse(popped.isDone(), "pop answered before it was logged");
            FullDiskChannel.full(false);
            assertEquals(":1\r\n", pushed.get(10, TimeUnit.SECONDS));
            assertEquals("*2\r\n$5\r\nqueue\r\n$3\r\njob\r\n", popped.get(10, TimeUnit.SECONDS));
        }
        AofFile.opener = AofFile::openForAppend;
        try (SpinelServer s = start("always"); RawClient c = new RawClient(s.port())) {
            assertEquals(":0\r\n", c.callString("EXISTS", "queue"));
        }
    }

    private static String read(RawClient c) {
        try {
            return new String(c.readReply());
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }
}
