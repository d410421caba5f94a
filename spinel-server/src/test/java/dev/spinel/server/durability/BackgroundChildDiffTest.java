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
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Killing the process that stands for Redis's fork child fails the background job as killing Redis's child does
 * (aof-multi-part.tcl's "AOF multiple rewrite failures will open multiple INCR AOFs", "AOF will trigger limit when
 * AOFRW fails many times", rdb.tcl's "failed bgsave prevents writes"), compared with redis-server 7.0.15: each killed
 * rewrite leaves its incremental file in the manifest and counts as a consecutive failure, a successful one folds
 * them, aof-disable-auto-gc keeps the replaced files as history in Redis's order until set back to no, and a killed
 * BGSAVE fails (MISCONF on writes). INFO's total_forks counts the jobs.
 */
class BackgroundChildDiffTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void killingTheChildFailsTheJobAsInRedis() throws Exception {
        List<String> redis;
        try (RedisServerProcess r = RedisServerProcess.start("--appendonly", "yes");
             RawClient c = new RawClient(r.port())) {
            redis = scenario(c, r.dir().resolve("appendonlydir"),
                    () -> ProcessHandle.of(r.pid()).orElseThrow().children().findFirst().orElse(null));
        }
        List<String> spinel;
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", "yes"));
             RawClient c = new RawClient(s.port())) {
            spinel = scenario(c, dir.resolve("appendonlydir"), () -> ProcessHandle.current().children()
                    .filter(p -> p.info().command().map(cmd -> cmd.endsWith("/cat")).orElse(false)).findFirst().orElse(null));
        }
        assertEquals(redis, spinel);
    }

    private static List<String> scenario(RawClient c, Path aofDir, Supplier<ProcessHandle> child) throws Exception {
        List<String> seen = new ArrayList<>();
        waitIdle(c);
        long forks = info(c).get("total_forks");
        c.call("SET", "k1", "v1");
        c.call("SET", "k2", "v2");
        c.call("CONFIG", "SET", "rdb-key-save-delay", "1000000"); // a second per key: the job waits to be killed
        for (int i = 0; i < 3; i++) {
            seen.add(c.callString("BGREWRITEAOF"));
            kill(child);
            waitIdle(c);
            Map<String, Long> info = info(c);
            seen.add("failures " + info.get("aof_rewrites_consecutive_failures") + " " + status(c, "aof_last_bgrewrite_status"));
            seen.add(manifest(aofDir));
        }
        c.call("CONFIG", "SET", "rdb-key-save-delay", "0");
        seen.add(c.callString("BGREWRITEAOF"));
        waitIdle(c);
        seen.add("failures " + info(c).get("aof_rewrites_consecutive_failures") + " " + status(c, "aof_last_bgrewrite_status"));
        seen.add(manifest(aofDir));
        c.call("CONFIG", "SET", "aof-disable-auto-gc", "yes");
        for (int i = 0; i < 2; i++) {
            c.call("BGREWRITEAOF");
            waitIdle(c);
        }
        seen.add(manifest(aofDir));
        seen.add(String.valueOf(files(aofDir)));
        c.call("CONFIG", "SET", "aof-disable-auto-gc", "no");
        seen.add(manifest(aofDir));
        Await.waitFor(() -> files(aofDir) == 3, "the history files deleted"); // manifest, base, incr
        // a killed BGSAVE fails: writes are refused while save points are set
        c.call("CONFIG", "SET", "save", "3600 1");
        c.call("CONFIG", "SET", "rdb-key-save-delay", "1000000");
        seen.add(c.callString("BGSAVE"));
        kill(child);
        Await.waitFor(() -> info(c).get("rdb_bgsave_in_progress") == 0, "the BGSAVE ended");
        seen.add(status(c, "rdb_last_bgsave_status"));
        seen.add(c.callString("SET", "x", "1"));
        seen.add("forks " + (info(c).get("total_forks") - forks));
        return seen;
    }

    private static void kill(Supplier<ProcessHandle> child) throws Exception {
        AtomicReference<ProcessHandle> found = new AtomicReference<>();
        Await.waitFor(() -> {
            found.set(child.get());
            return found.get() != null;
        }, "the job's child process");
        found.get().destroyForcibly(); // SIGKILL
    }

    private static void waitIdle(RawClient c) throws Exception {
        Await.waitFor(() -> {
            Map<String, Long> i = info(c);
            return i.get("aof_rewrite_in_progress") == 0 && i.get("rdb_bgsave_in_progress") == 0
                    && i.get("aof_rewrite_scheduled") == 0;
        }, "no background job");
    }

    private static Map<String, Long> info(RawClient c) throws Exception {
        return c.infoNumbers("persistence", "stats");
    }

    private static String status(RawClient c, String field) throws Exception {
        for (String line : c.callString("INFO", "persistence").split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return line;
            }
        }
        return field + " missing";
    }

    private static String manifest(Path aofDir) throws Exception {
        return Files.readString(aofDir.resolve("appendonly.aof.manifest"), StandardCharsets.ISO_8859_1);
    }

    private static long files(Path aofDir) throws Exception {
        try (Stream<Path> s = Files.list(aofDir)) {
            return s.count();
        }
    }
}
