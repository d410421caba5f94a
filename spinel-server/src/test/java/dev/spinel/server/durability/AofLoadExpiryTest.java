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

/**
 * While the append-only log is replayed nothing expires and a time in the past does not delete (Redis's
 * checkAlreadyExpired and keyIsExpired while loading): RPUSH, PEXPIREAT in the past, RPUSH leaves one list with
 * both elements and that time, which is gone once the server serves (aof.tcl "AOF+EXPIRE: List should be empty").
 * Annotation lines (aof-timestamp-enabled's "#TS:") are skipped. The same files are loaded by redis-server and Spinel.
 */
class AofLoadExpiryTest {
    @TempDir
    Path dir;

    /** aof.tcl "Successfully load AOF which has timestamp annotations inside": "#TS:" lines are skipped. */
    @Test
    void timestampAnnotationsAreSkippedAsInRedis() throws Exception {
        Path aof = Files.createDirectories(dir.resolve("appendonlydir"));
        Files.writeString(aof.resolve("appendonly.aof.1.incr.aof"), "#TS:1628217470\r\n" + resp("set", "foo1", "bar1")
                + "#TS:1628217471\r\n" + resp("set", "foo2", "bar2") + "#TS:1628217472\r\n#TS:1628217473\r\n"
                + resp("set", "foo3", "bar3") + "#TS:16282", StandardCharsets.ISO_8859_1);
        Files.writeString(aof.resolve("appendonly.aof.manifest"), "file appendonly.aof.1.incr.aof seq 1 type i\n");
        Path copy = Files.createDirectories(dir.resolve("redis").resolve("appendonlydir"));
        for (String f : List.of("appendonly.aof.1.incr.aof", "appendonly.aof.manifest")) {
            Files.copy(aof.resolve(f), copy.resolve(f));
        }
        List<String> redis = new ArrayList<>();
        try (RedisServerProcess r = RedisServerProcess.start("--dir", copy.getParent().toString(), "--appendonly", "yes");
             RawClient c = new RawClient(r.port())) {
            AofTest.awaitLoaded(c);
            for (String k : List.of("foo1", "foo2", "foo3")) {
                redis.add(c.callString("GET", k));
            }
        }
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", "yes")); RawClient c = new RawClient(s.port())) {
            for (int i = 0; i < 3; i++) {
                assertEquals(redis.get(i), c.callString("GET", "foo" + (i + 1)));
            }
        }
        assertEquals("$4\r\nbar3\r\n", redis.get(2));
    }

    @Test
    void aTimeInThePastTakesEffectAfterTheLoadAsInRedis() throws Exception {
        Path aof = Files.createDirectories(dir.resolve("appendonlydir"));
        Files.writeString(aof.resolve("appendonly.aof.1.incr.aof"), resp("rpush", "list", "foo") + resp("pexpireat", "list", "1000")
                + resp("rpush", "list", "bar") + resp("set", "s", "v", "pxat", "2000") + resp("append", "s", "w")
                + resp("sadd", "kept", "m"), StandardCharsets.ISO_8859_1);
        Files.writeString(aof.resolve("appendonly.aof.manifest"), "file appendonly.aof.1.incr.aof seq 1 type i\n");
        List<String> redis;
        Path copy = Files.createDirectories(dir.resolve("redis"));
        Files.createDirectories(copy.resolve("appendonlydir"));
        for (String f : List.of("appendonly.aof.1.incr.aof", "appendonly.aof.manifest")) {
            Files.copy(aof.resolve(f), copy.resolve("appendonlydir").resolve(f));
        }
        try (RedisServerProcess r = RedisServerProcess.start("--dir", copy.toString(), "--appendonly", "yes");
             RawClient c = new RawClient(r.port())) {
            AofTest.awaitLoaded(c);
            redis = state(c);
        }
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", "yes")); RawClient c = new RawClient(s.port())) {
            assertEquals(redis, state(c));
        }
        assertEquals(List.of(":0\r\n", "$-1\r\n", ":1\r\n"), redis);
    }

    private static List<String> state(RawClient c) throws Exception {
        List<String> out = new ArrayList<>();
        out.add(c.callString("LLEN", "list"));
        out.add(c.callString("GET", "s"));
        out.add(c.callString("SCARD", "kept"));
        return out;
    }

    private static String resp(String... argv) {
        StringBuilder sb = new StringBuilder("*").append(argv.length).append("\r\n");
        for (String a : argv) {
            sb.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
        }
        return sb.toString();
    }
}
