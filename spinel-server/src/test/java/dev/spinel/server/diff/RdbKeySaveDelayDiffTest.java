package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hidden rdb-key-save-delay (Redis's test knob): CONFIG GET answers it by name only, CONFIG SET checks it
 * as Redis does, and a BGSAVE with a delay per key is still running when one without would long be done.
 */
class RdbKeySaveDelayDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-protected-configs", "yes");

    @TempDir
    static Path spinelDir;

    @Test
    void hiddenFromPatternsAndCheckedAsRedis() throws Exception {
        try (RawClient s = new RawClient(SERVERS.spinel().port()); RawClient r = new RawClient(SERVERS.redis().port())) {
            for (String[] cmd : List.of(
                    new String[] {"CONFIG", "GET", "rdb-key-save-delay"},
                    new String[] {"CONFIG", "GET", "rdb-key-save-*"},
                    new String[] {"CONFIG", "GET", "*save-delay"},
                    new String[] {"CONFIG", "SET", "rdb-key-save-delay", "abc"},
                    new String[] {"CONFIG", "SET", "rdb-key-save-delay", "2147483648"},
                    new String[] {"CONFIG", "SET", "rdb-key-save-delay", "-5"},
                    new String[] {"CONFIG", "GET", "RDB-KEY-SAVE-DELAY"},
                    new String[] {"CONFIG", "SET", "rdb-key-save-delay", "0"})) {
                assertEquals(r.callString(cmd), s.callString(cmd), String.join(" ", cmd));
            }
        }
    }

    @Test
    void aBgsaveSleepsAfterEachKey() throws Exception {
        try (RawClient s = new RawClient(SERVERS.spinel().port())) {
            assertEquals("+OK\r\n", s.callString("CONFIG", "SET", "dir", spinelDir.toString()));
            s.call("FLUSHALL");
            for (int i = 0; i < 5; i++) {
                s.call("SET", "k" + i, "v");
            }
            assertEquals("+OK\r\n", s.callString("CONFIG", "SET", "rdb-key-save-delay", "200000"));
            long start = System.nanoTime();
            assertEquals("+Background saving started\r\n", s.callString("BGSAVE"));
            Thread.sleep(300);
            assertTrue(s.callString("INFO", "persistence").contains("rdb_bgsave_in_progress:1"), "5 keys at 0.2 s each");
            while (s.callString("INFO", "persistence").contains("rdb_bgsave_in_progress:1")) {
                Thread.sleep(20);
            }
            assertTrue(System.nanoTime() - start >= 1_000_000_000L, "the save took at least 5 x 0.2 s");
            assertTrue(s.callString("INFO", "persistence").contains("rdb_last_bgsave_status:ok"));
            assertEquals("+OK\r\n", s.callString("CONFIG", "SET", "rdb-key-save-delay", "0"));
        }
    }
}
