package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CONFIG SET appendonly no stops a rewrite in progress at once, as Redis kills its rewrite child (aofrw.tcl's
 * "Turning off AOF kills the background writing child"): with rdb-key-save-delay at 10 s per key the rewrite
 * would otherwise hold the CONFIG SET for 10 s; its base is not used.
 */
class AofRewriteStopTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void turningTheLogOffStopsTheRewrite() throws Exception {
        try (SpinelServer s = AofReplay.startLogging(dir); RawClient c = new RawClient(s.port())) {
            c.call("SET", "k", "v");
            c.call("CONFIG", "SET", "rdb-key-save-delay", "10000000");
            assertEquals("+Background append only file rewriting started\r\n", c.callString("BGREWRITEAOF"));
            long start = System.nanoTime();
            assertEquals("+OK\r\n", c.callString("CONFIG", "SET", "appendonly", "no"));
            assertTrue(System.nanoTime() - start < 5_000_000_000L, "the rewrite was stopped, not waited for");
            assertTrue(c.callString("INFO", "persistence").contains("aof_rewrite_in_progress:0"));
            assertFalse(Files.readString(dir.resolve("appendonlydir/appendonly.aof.manifest")).contains(".2.base."));
        }
    }

    @Test
    @Timeout(60)
    void shutdownStopsTheRewrite() throws Exception {
        SpinelServer s = AofReplay.startLogging(dir);
        try (RawClient c = new RawClient(s.port())) {
            c.call("SET", "k", "v");
            c.call("CONFIG", "SET", "rdb-key-save-delay", "10000000");
            assertEquals("+Background append only file rewriting started\r\n", c.callString("BGREWRITEAOF"));
        }
        long start = System.nanoTime();
        s.close(); // as Redis's prepareForShutdown kills its rewrite child
        assertTrue(System.nanoTime() - start < 5_000_000_000L, "the rewrite was stopped, not waited for");
        try (SpinelServer again = AofReplay.startLogging(dir); RawClient c = new RawClient(again.port())) {
            assertEquals("$1\r\nv\r\n", c.callString("GET", "k"), "the old base and incr files still replay");
        }
    }
}
