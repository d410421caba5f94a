package dev.spinel.server.testing;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs Redis's own {@code redis-check-aof} on a log Spinel wrote: the proof that Redis's tools accept it. */
public final class RedisCheckAof {
    private RedisCheckAof() {
    }

    /** Asserts that redis-check-aof exits 0 on the manifest of {@code aofDir} and reports it valid. */
    public static void assertValid(Path aofDir) throws Exception {
        Process check = new ProcessBuilder("redis-check-aof", aofDir.resolve("appendonly.aof.manifest").toString())
                .redirectErrorStream(true).start();
        String report = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(check.waitFor(60, TimeUnit.SECONDS), "redis-check-aof did not finish");
        assertEquals(0, check.exitValue(), report);
        assertTrue(report.contains("is valid"), report);
    }
}
