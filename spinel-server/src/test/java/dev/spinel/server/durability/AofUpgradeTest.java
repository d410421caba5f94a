package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A pre-7.0 single-file log ({@code dir/appendonly.aof}, commands or an RDB preamble followed by commands) is
 * moved into {@code appendonlydir/} and loaded, as redis-server 7.0.15 does: same keys, same manifest, the
 * old file gone from the server directory; also an upgrade interrupted after the manifest was written.
 */
class AofUpgradeTest {
    @TempDir
    Path dir;

    private static final String COMMANDS = "*3\r\n$3\r\nSET\r\n$2\r\nk2\r\n$2\r\nv2\r\n*3\r\n$3\r\nSET\r\n$2\r\nk3\r\n$2\r\nv3\r\n";

    /** An RDB (from redis-server) holding k1=v1, then commands: what Redis 4-6 wrote with aof-use-rdb-preamble yes. */
    private static byte[] preamble() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start(); RawClient c = new RawClient(redis.port())) {
            c.call("SET", "k1", "v1");
            c.call("SAVE");
            String d = new String(c.call("CONFIG", "GET", "dir"), StandardCharsets.UTF_8).split("\r\n")[4];
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.write(Files.readAllBytes(Path.of(d, "dump.rdb")));
            b.write(COMMANDS.getBytes(StandardCharsets.US_ASCII));
            return b.toByteArray();
        }
    }

    private static String state(RawClient c) throws Exception {
        return c.callString("GET", "k1") + c.callString("GET", "k2") + c.callString("GET", "k3") + c.callString("DBSIZE");
    }

    private Path prepare(String name, byte[] old, boolean interrupted) throws Exception {
        Path d = Files.createDirectories(dir.resolve(name));
        Files.write(d.resolve("appendonly.aof"), old);
        if (interrupted) {
            Files.createDirectories(d.resolve("appendonlydir"));
            Files.writeString(d.resolve("appendonlydir/appendonly.aof.manifest"), "file appendonly.aof seq 1 type b\n");
        }
        return d;
    }

    @Test
    @Timeout(90)
    void oldSingleFileLogsAreMovedAndLoadedAsRedisDoes() throws Exception {
        byte[] rdb = preamble();
        for (Object[] c : List.of(new Object[] {"commands", COMMANDS.getBytes(StandardCharsets.US_ASCII), false},
                new Object[] {"preamble", rdb, false}, new Object[] {"interrupted", rdb, true})) {
            String name = (String) c[0];
            Path forRedis = prepare(name + "-redis", (byte[]) c[1], (Boolean) c[2]);
            Path forSpinel = prepare(name + "-spinel", (byte[]) c[1], (Boolean) c[2]);
            String expected;
            try (RedisServerProcess redis = RedisServerProcess.start("--dir", forRedis.toString(), "--appendonly", "yes");
                 RawClient rc = new RawClient(redis.port())) {
                AofTest.awaitLoaded(rc);
                expected = state(rc);
            }
            try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", forSpinel.toString())
                    .with("appendonly", "yes")); RawClient sc = new RawClient(s.port())) {
                assertEquals(expected, state(sc), name);
            }
            assertFalse(Files.exists(forSpinel.resolve("appendonly.aof")), name);
            assertEquals(Files.readString(forRedis.resolve("appendonlydir/appendonly.aof.manifest")),
                    Files.readString(forSpinel.resolve("appendonlydir/appendonly.aof.manifest")), name);
        }
    }
}
