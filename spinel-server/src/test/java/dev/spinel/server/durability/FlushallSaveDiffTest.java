package dev.spinel.server.durability;

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
 * FLUSHALL with save points set saves the emptied dataset at once, as Redis's flushAllDataAndResetRDB (rdbSave):
 * the change counter is 0 afterwards and the file holds no key (Redis's unit/other "FLUSHALL should reset the dirty
 * counter to 0 if we enable save"). Without save points it saves nothing. Before, the counter kept the flush's changes
 * and the old file kept the flushed keys until the next save point.
 */
class FlushallSaveDiffTest {

    @Test
    @Timeout(60)
    void flushallSavesTheEmptyDatasetWhenSavePointsAreSet(@TempDir Path dir) throws Exception {
        List<List<String>> both = SideBySide.transcripts(dir, FlushallSaveDiffTest::transcript, "enable-debug-command", "yes");
        assertEquals(both.get(0), both.get(1));
    }

    private static List<String> transcript(RawClient c) throws Exception {
        List<String> out = new ArrayList<>();
        out.add(c.callString("CONFIG", "SET", "save", ""));
        out.add(c.callString("SET", "a", "1"));
        out.add(c.callString("SAVE"));
        out.add(c.callString("SET", "b", "2"));
        out.add(c.callString("FLUSHALL"));
        out.add(changes(c)); // no save points: no save, the flush counted
        out.add(c.callString("CONFIG", "SET", "save", "3600 1 300 100 60 10000"));
        out.add(c.callString("SET", "key", "value"));
        out.add(c.callString("FLUSHALL"));
        out.add(changes(c));
        out.add(c.callString("SET", "after", "1"));
        out.add(changes(c));
        out.add(c.callString("DEBUG", "RELOAD", "NOSAVE")); // what the file holds: the empty dataset
        out.add(c.callString("DBSIZE"));
        out.add(c.callString("CONFIG", "SET", "save", ""));
        return out;
    }

    private static String changes(RawClient c) throws Exception {
        for (String line : c.callString("INFO", "persistence").split("\r\n")) {
            if (line.startsWith("rdb_changes_since_last_save:")) {
                return line;
            }
        }
        throw new AssertionError("no rdb_changes_since_last_save");
    }
}
