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
 * The replay of the append-only log is never refused as a client's writes are: DEBUG LOADAOF on a read-only replica
 * whose link is down (Redis's unit/functions "FUNCTION can processes create, delete and flush commands in AOF when
 * doing debug loadaof in read-only slaves") reloads every write, as Redis's AOF client obeys (mustObeyClient). Before,
 * the replay's writes met READONLY (and MASTERDOWN for the rest) and the log's commands were silently lost.
 */
class AofReplayOnReplicaDiffTest {

    @Test
    @Timeout(60)
    void debugLoadaofOnAReadOnlyReplicaReloadsEveryWrite(@TempDir Path dir) throws Exception {
        List<List<String>> both = SideBySide.transcripts(dir, AofReplayOnReplicaDiffTest::transcript, "enable-debug-command", "yes");
        assertEquals(both.get(0), both.get(1));
    }

    private static List<String> transcript(RawClient c) throws Exception {
        List<String> out = new ArrayList<>();
        out.add(c.callString("CONFIG", "SET", "appendonly", "yes"));
        Await.waitFor(() -> c.callString("INFO", "persistence").contains("aof_rewrite_in_progress:0\r\n")
                && !c.callString("INFO", "persistence").contains("aof_rewrite_scheduled:1\r\n"), "the initial rewrite");
        out.add(c.callString("FUNCTION", "LOAD", "#!lua name=test\nredis.register_function('test', function() return 'hello' end)"));
        out.add(c.callString("SET", "k", "v"));
        out.add(c.callString("HSET", "h", "f", "1"));
        for (String serveStale : List.of("yes", "no")) {
            out.add(c.callString("CONFIG", "SET", "replica-serve-stale-data", serveStale));
            out.add(c.callString("CONFIG", "SET", "slave-read-only", "yes"));
            out.add(c.callString("SLAVEOF", "127.0.0.1", "0"));
            out.add(c.callString("DEBUG", "LOADAOF"));
            out.add(c.callString("SLAVEOF", "NO", "ONE"));
            out.add(c.callString("FUNCTION", "LIST"));
            out.add(c.callString("GET", "k"));
            out.add(c.callString("HGETALL", "h"));
        }
        return out;
    }
}
