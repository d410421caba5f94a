package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DEBUG AOF-FLUSH-SLEEP (Redis's hidden test knob, aof.tcl "AOF fsync always barrier issue"): the log sleeps before
 * each write, and under appendfsync always a write's reply waits for it, so the reply arrives with the command in
 * the file. And aof-timestamp-enabled's "#TS:" annotation lines, written as Redis writes them.
 */
class AofFlushSleepTest {
    @TempDir
    Path dir;

    /** aof.tcl "Generate timestamp annotations in AOF": with aof-timestamp-enabled the incr file starts with "#TS:". */
    @Test
    void timestampAnnotationsAreWrittenAsRedisWritesThem() throws Exception {
        List<String> firstLines = new ArrayList<>();
        try (RedisServerProcess r = RedisServerProcess.start("--appendonly", "yes"); RawClient c = new RawClient(r.port())) {
            c.call("CONFIG", "SET", "aof-timestamp-enabled", "yes");
            c.call("SET", "foo", "bar");
            firstLines.add(firstLine(r.dir().resolve("appendonlydir").resolve("appendonly.aof.1.incr.aof")));
        }
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", "yes").with("appendfsync", "always")); RawClient c = new RawClient(s.port())) {
            c.call("CONFIG", "SET", "aof-timestamp-enabled", "yes");
            c.call("SET", "foo", "bar");
            firstLines.add(firstLine(dir.resolve("appendonlydir").resolve("appendonly.aof.1.incr.aof")));
        }
        for (String l : firstLines) {
            assertTrue(l.matches("#TS:\\d+"), firstLines.toString());
            assertTrue(Math.abs(Long.parseLong(l.substring(4)) - System.currentTimeMillis() / 1000) < 60, l);
        }
    }

    private static String firstLine(Path file) throws Exception {
        String all = Files.readString(file, StandardCharsets.ISO_8859_1);
        return all.substring(0, Math.max(0, all.indexOf("\r\n")));
    }

    @Test
    void aReplyUnderAlwaysWaitsForTheSleepingLog() throws Exception {
        String redisReply;
        try (RedisServerProcess r = RedisServerProcess.start("--enable-debug-command", "yes"); RawClient c = new RawClient(r.port())) {
            redisReply = c.callString("DEBUG", "AOF-FLUSH-SLEEP", "500000");
        }
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", "yes").with("appendfsync", "always").with("enable-debug-command", "yes")); RawClient c = new RawClient(s.port())) {
            assertEquals("+OK\r\n", redisReply);
            assertEquals(redisReply, c.callString("DEBUG", "AOF-FLUSH-SLEEP", "500000"));
            Path incr = dir.resolve("appendonlydir").resolve("appendonly.aof.1.incr.aof");
            long before = Files.size(incr);
            long t0 = System.nanoTime();
            assertEquals(":1\r\n", c.callString("INCR", "new_value"));
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(tookMs >= 450, "the reply came " + tookMs + " ms after the command, before the log's sleep ended");
            assertTrue(Files.size(incr) > before, "the command is in the file when its reply arrives");
            assertEquals("+OK\r\n", c.callString("DEBUG", "AOF-FLUSH-SLEEP", "0"));
        }
    }
}
