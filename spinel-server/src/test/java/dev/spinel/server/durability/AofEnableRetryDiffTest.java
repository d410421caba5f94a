package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.Await;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * CONFIG SET appendonly yes at run time, as redis-server 7.0.15 does it (aof-multi-part.tcl's "AOF enable during
 * BGSAVE will not write data util AOFRW finish" and "AOF will open a temporary INCR AOF to accumulate data until the
 * first AOFRW success when AOF is dynamically enabled"): during a BGSAVE the start is scheduled (no file yet); the
 * log's first writes go to {@code temp-appendonly.aof.incr}; a failed first rewrite (its child killed) removes that
 * file, writes no manifest and is retried by the cron; the first success lists base 1 and incr 1.
 */
class AofEnableRetryDiffTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void enablingTheLogAtRunTimeAsRedis() throws Exception {
        List<String> redis;
        try (RedisServerProcess r = RedisServerProcess.start(); RawClient c = new RawClient(r.port())) {
            redis = scenario(c, r.dir().resolve("appendonlydir"),
                    () -> ProcessHandle.of(r.pid()).orElseThrow().children().findFirst().orElse(null));
        }
        List<String> spinel;
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString()));
             RawClient c = new RawClient(s.port())) {
            spinel = scenario(c, dir.resolve("appendonlydir"), () -> ProcessHandle.current().children()
                    .filter(p -> p.info().command().map(cmd -> cmd.endsWith("/cat")).orElse(false)).findFirst().orElse(null));
        }
        assertEquals(redis, spinel);
    }

    private static List<String> scenario(RawClient c, Path aofDir, Supplier<ProcessHandle> child) throws Exception {
        List<String> seen = new ArrayList<>();
        long forks = info(c).get("total_forks");
        c.call("SET", "k1", "v1");
        c.call("CONFIG", "SET", "rdb-key-save-delay", "1000000"); // a second per key: each job waits to be killed
        // 1. enabled during a BGSAVE: scheduled, nothing written until the save ends
        seen.add(c.callString("BGSAVE"));
        ProcessHandle save = find(child, null);
        c.call("CONFIG", "SET", "appendonly", "yes");
        Map<String, Long> i = info(c);
        seen.add("scheduled " + i.get("aof_rewrite_scheduled") + " enabled " + i.get("aof_enabled") + " running "
                + i.get("aof_rewrite_in_progress") + " dir " + Files.exists(aofDir));
        // 2. the save killed, the cron starts the log's first rewrite: its writes go to the temporary file
        save.destroyForcibly();
        ProcessHandle first = find(child, save);
        c.call("SET", "k2", "v2");
        seen.add("temp " + Files.exists(aofDir.resolve("temp-appendonly.aof.incr"))
                + " manifest " + Files.exists(aofDir.resolve("appendonly.aof.manifest")));
        // 3. that rewrite killed: the temporary file goes, no manifest, and the cron tries again
        first.destroyForcibly();
        ProcessHandle second = find(child, first);
        seen.add("retry manifest " + Files.exists(aofDir.resolve("appendonly.aof.manifest"))
                + " failures " + info(c).get("aof_rewrites_consecutive_failures"));
        c.call("CONFIG", "SET", "rdb-key-save-delay", "0");
        second.destroyForcibly();
        // 4. the third attempt succeeds
        Await.waitFor(() -> Files.exists(aofDir.resolve("appendonly.aof.manifest")) && info(c).get("aof_rewrite_in_progress") == 0
                && info(c).get("aof_rewrite_scheduled") == 0, "the first successful rewrite");
        seen.add(Files.readString(aofDir.resolve("appendonly.aof.manifest"), StandardCharsets.ISO_8859_1));
        seen.add("temp " + Files.exists(aofDir.resolve("temp-appendonly.aof.incr")));
        seen.add("forks " + (info(c).get("total_forks") - forks));
        c.call("SET", "k3", "v3");
        seen.add(c.callString("DEBUG", "LOADAOF"));
        seen.add(c.callString("MGET", "k1", "k2", "k3"));
        return seen;
    }

    /** Waits for the server's child process other than {@code previous}. */
    private static ProcessHandle find(Supplier<ProcessHandle> child, ProcessHandle previous) throws Exception {
        ProcessHandle[] found = new ProcessHandle[1];
        Await.waitFor(() -> {
            ProcessHandle p = child.get();
            found[0] = p;
            return p != null && (previous == null || p.pid() != previous.pid());
        }, "the job's child process");
        return found[0];
    }

    private static Map<String, Long> info(RawClient c) throws Exception {
        return c.infoNumbers("persistence", "stats");
    }
}
