package dev.spinel.server;

import dev.spinel.server.config.ConfigException;
import dev.spinel.server.config.ServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * oom-score-adj as Redis's setOOMScoreAdj writes /proc/self/oom_score_adj (here a file standing for it; Redis's
 * unit/oom-score-adj checks the real one of a running server): relative to the score found before the first
 * change, absolute, the replica class, clamped, restored when turned off, untouched while off, and a file that
 * cannot be written fails with Redis's reason.
 */
class OomScoreAdjTest {
    @TempDir
    Path dir;

    private final ServerConfig config = ServerConfig.defaults();
    private final AtomicBoolean replica = new AtomicBoolean();

    private OomScoreAdj oom(Path file) {
        return new OomScoreAdj(file, config.param("oom-score-adj"), config.param("oom-score-adj-values"), replica::get);
    }

    private static int score(Path file) throws Exception {
        return Integer.parseInt(Files.readString(file).trim());
    }

    @Test
    void followsTheConfigurationAndRestoresTheOriginalScore() throws Exception {
        Path file = Files.writeString(dir.resolve("oom_score_adj"), "22\n");
        OomScoreAdj oom = oom(file);
        config.set("oom-score-adj-values", "10 20 30");
        oom.apply();
        assertEquals(22, score(file), "off: not touched");
        config.set("oom-score-adj", "yes");
        oom.apply();
        assertEquals(32, score(file));
        config.set("oom-score-adj-values", "15 20 30");
        oom.apply();
        assertEquals(37, score(file), "relative to the score found first, not to the current one");
        replica.set(true);
        oom.apply();
        assertEquals(42, score(file));
        replica.set(false);
        config.set("oom-score-adj", "absolute");
        oom.apply();
        assertEquals(15, score(file));
        config.set("oom-score-adj-values", "2000 2000 2000");
        oom.apply();
        assertEquals(1000, score(file), "clamped");
        config.set("oom-score-adj", "no");
        oom.apply();
        assertEquals(22, score(file), "restored");
        Files.writeString(file, "5\n");
        config.set("oom-score-adj-values", "1 1 1");
        oom.apply();
        assertEquals(5, score(file), "off again: not touched");
        config.set("oom-score-adj", "relative");
        assertEquals("yes", config.param("oom-score-adj").get(), "relative is yes, as Redis names it");
        oom.apply();
        assertEquals(6, score(file), "a new original score once turned on again");
    }

    @Test
    void aScoreThatCannotBeWrittenFails() throws Exception {
        OomScoreAdj oom = oom(dir.resolve("missing").resolve("oom_score_adj"));
        config.set("oom-score-adj", "yes");
        ConfigException e = assertThrows(ConfigException.class, oom::apply);
        assertEquals("Failed to set current oom_score_adj. Check server logs.", e.getMessage());
    }
}
