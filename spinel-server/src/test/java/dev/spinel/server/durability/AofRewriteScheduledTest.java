package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.Await;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * BGREWRITEAOF during a BGSAVE is scheduled, as Redis 7.0 does (aofrw.tcl's "BGREWRITEAOF is delayed if BGSAVE
 * is in progress"): the reply says so, INFO shows aof_rewrite_scheduled:1, and the rewrite runs once the save ends.
 */
class AofRewriteScheduledTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void aRewriteDuringABgsaveWaitsForIt() throws Exception {
        try (SpinelServer s = AofReplay.startLogging(dir); RawClient c = new RawClient(s.port())) {
            c.call("SET", "k", "v");
            c.call("CONFIG", "SET", "rdb-key-save-delay", "1000000"); // the BGSAVE takes 1 s
            assertEquals("+Background saving started\r\n", c.callString("BGSAVE"));
            assertEquals("+Background append only file rewriting scheduled\r\n", c.callString("BGREWRITEAOF"));
            assertTrue(c.callString("INFO", "persistence").contains("aof_rewrite_scheduled:1"));
            c.call("CONFIG", "SET", "rdb-key-save-delay", "0");
            Await.waitFor(() -> c.callString("INFO", "persistence").contains("aof_rewrite_scheduled:0")
                    && Files.readString(dir.resolve("appendonlydir/appendonly.aof.manifest")).contains(".2.base."), "the scheduled rewrite");
        }
    }
}
