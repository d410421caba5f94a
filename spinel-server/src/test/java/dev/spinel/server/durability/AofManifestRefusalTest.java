package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bad multi-part manifest (the cases of Redis's aof-multi-part.tcl) stops the start with the same report as
 * redis-server 7.0.15's: for each manifest, the lines Spinel's start fails with are the last warning lines of the
 * log of a redis-server started on the same directory. A manifest Redis accepts (unknown keys, comments, a file
 * name with spaces, written quoted) is accepted.
 */
class AofManifestRefusalTest {
    @TempDir
    Path dir;

    private static final String BASE = "file appendonly.aof.1.base.aof seq 1 type b\n";
    private static final String INCR = "file appendonly.aof.1.incr.aof seq 1 type i\n";

    private static Map<String, String> cases() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("missing file", BASE + INCR + "file appendonly.aof.2.incr.aof seq 2 type i\n");
        m.put("not monotonic", BASE + "file appendonly.aof.2.incr.aof seq 2 type i\n" + INCR);
        m.put("blank line", BASE + INCR + "\n" + "file appendonly.aof.3.incr.aof seq 3 type i\n");
        m.put("duplicate base", BASE + "file appendonly.aof.2.base.aof seq 2 type b\n" + INCR);
        m.put("unknown type", "file appendonly.aof.1.base.aof seq 1 type x\n" + INCR);
        m.put("missing key", "filx appendonly.aof.1.base.aof seq 1 type b\n" + INCR);
        m.put("line too short", BASE + "file appendonly.aof.1.incr.aof type i\n");
        m.put("line too long", BASE.strip().repeat(30) + "\n" + INCR);
        m.put("odd parameter", BASE + "file appendonly.aof.1.incr.aof seq 1 type i newkey\n");
        m.put("empty", "");
        m.put("path", "file ../appendonly.aof.1.base.aof seq 1 type b\n" + INCR);
        m.put("unterminated quote", "file \"appendonly.aof.1.base.aof seq 1 type b\n" + INCR);
        return m;
    }

    private Path prepare(String manifest) throws Exception {
        Path d = Files.createTempDirectory(dir, "case");
        Path aof = Files.createDirectories(d.resolve("appendonlydir"));
        Files.writeString(aof.resolve("appendonly.aof.manifest"), manifest, StandardCharsets.ISO_8859_1);
        for (String f : List.of("appendonly.aof.1.base.aof", "appendonly.aof.2.base.aof", "appendonly.aof.1.incr.aof")) {
            Files.writeString(aof.resolve(f), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n");
        }
        return d;
    }

    /** The warning lines ("pid:M date # text") of a redis-server that refused to start on {@code d}. */
    private static List<String> redisWarnings(Path d) throws Exception {
        Process p = new ProcessBuilder(RedisServerProcess.executable(), "--port", Integer.toString(RedisServerProcess.freePort()), "--save", "", "--dir", d.toString(),
                "--appendonly", "yes").redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8); // ends when it exits
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() != 0, log);
        List<String> out = new ArrayList<>();
        for (String line : log.split("\\R")) {
            int at = line.indexOf(" # ");
            if (at >= 0 && !line.substring(at + 3).isBlank()) {
                out.add(line.substring(at + 3).strip());
            } else if (line.startsWith("*** FATAL")) {
                out.add(line.strip());
            }
        }
        return out;
    }

    @Test
    @Timeout(120)
    void badManifestsAreRefusedWithRedisWords() throws Exception {
        for (Map.Entry<String, String> c : cases().entrySet()) {
            Path d = prepare(c.getValue());
            List<String> redis = redisWarnings(d);
            RuntimeException e = assertThrows(RuntimeException.class, () -> SpinelServer.start(ServerConfig.defaults()
                    .with("port", "0").with("dir", d.toString()).with("appendonly", "yes")).close(), c.getKey());
            List<String> spinel = Arrays.stream(e.getMessage().split("\\R")).map(String::strip).filter(l -> !l.isEmpty()).toList();
            assertTrue(redis.size() >= spinel.size(), c.getKey() + ": " + redis + " vs " + spinel);
            assertEquals(redis.subList(redis.size() - spinel.size(), redis.size()), spinel, c.getKey());
        }
    }

    @Test
    @Timeout(60)
    void manifestsRedisAcceptsAreAccepted() throws Exception {
        Path d = prepare("# a comment\nfile appendonly.aof.1.base.aof seq 1 type b newkey newvalue\n" + INCR);
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", d.toString())
                .with("appendonly", "yes")); RawClient c = new RawClient(s.port())) {
            assertEquals("$1\r\nv\r\n", c.callString("GET", "k"));
        }
        // a name with spaces is written quoted (Redis's sdscatrepr) and read back
        Path spaced = Files.createTempDirectory(dir, "spaced");
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", spaced.toString())
                .with("appendonly", "yes").with("appendfilename", " file name "))) {
            assertTrue(s.port() > 0);
        }
        String manifest = Files.readString(spaced.resolve("appendonlydir/ file name .manifest"));
        assertTrue(manifest.startsWith("file \" file name .1.base.rdb\" seq 1 type b\n"), manifest);
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", spaced.toString())
                .with("appendonly", "yes").with("appendfilename", " file name "))) {
            assertTrue(s.port() > 0);
        }
        try (RedisServerProcess redis = RedisServerProcess.start("--dir", spaced.toString(), "--appendonly", "yes",
                "--appendfilename", " file name ")) {
            assertTrue(redis.port() > 0, "redis-server reads the quoted name");
        }
    }
}
