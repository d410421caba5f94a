package dev.spinel.server.durability;

import dev.spinel.server.testing.Await;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * CONFIG SET appendonly yes inside MULTI/EXEC schedules the log's first rewrite for after the transaction, as
 * Redis's startAppendOnly does while in_exec ("AOF was enabled during a transaction. An AOF background was
 * scheduled to start when possible.", unit/multi "MULTI with config set appendonly"): an INFO later in the same EXEC
 * sees it scheduled, not running. Then the log starts and holds the whole transaction once.
 */
class AofEnabledInExecDiffTest {

    @Test
    @Timeout(60)
    void theFirstRewriteWaitsForTheTransactionsEnd(@TempDir Path dir) throws Exception {
        List<List<String>> both = SideBySide.transcripts(dir, AofEnabledInExecDiffTest::transcript, "enable-debug-command", "yes");
        assertEquals(both.get(0), both.get(1));
    }

    private static List<String> transcript(RawClient c) throws Exception {
        List<String> out = new ArrayList<>();
        out.add(c.callString("MULTI"));
        out.add(c.callString("INCR", "c"));
        out.add(c.callString("CONFIG", "SET", "appendonly", "yes"));
        out.add(c.callString("INCR", "c"));
        out.add(c.callString("INFO", "persistence"));
        String exec = c.callString("EXEC");
        for (String field : List.of("aof_enabled", "aof_rewrite_in_progress", "aof_rewrite_scheduled")) {
            int at = exec.indexOf(field + ":");
            out.add(exec.substring(at, exec.indexOf('\r', at)));
        }
        Await.waitFor(() -> c.callString("INFO", "persistence").contains("aof_rewrite_scheduled:0\r\n")
                && c.callString("INFO", "persistence").contains("aof_rewrite_in_progress:0\r\n"), "the first rewrite");
        out.add(c.callString("DEBUG", "LOADAOF"));
        out.add(c.callString("GET", "c"));
        return out;
    }
}
