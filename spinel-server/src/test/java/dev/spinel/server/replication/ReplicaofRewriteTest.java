package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CONFIG REWRITE writes the role REPLICAOF set, as Redis's rewriteConfigReplicaOfOption: {@code replicaof host port}
 * on a replica, no such line on a master; a server restarted from the file is a replica again (psync2.tcl restarts a
 * replica after CONFIG REWRITE and expects its partial resync).
 */
class ReplicaofRewriteTest {
    @TempDir
    Path dir;

    @Test
    void configRewriteWritesTheCurrentMaster() throws Exception {
        Path f = dir.resolve("spinel.conf");
        Files.writeString(f, "port 0\nrepl-diskless-sync-delay 0\n");
        try (RedisServerProcess master = RedisServerProcess.start()) {
            String line = "replicaof 127.0.0.1 " + master.port();
            try (SpinelServer server = SpinelServer.start(ServerConfig.fromArgs(new String[] {f.toString()}));
                 RawClient c = new RawClient(server.port())) {
                assertEquals("+OK\r\n", c.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port())));
                assertEquals("+OK\r\n", c.callString("CONFIG", "REWRITE"));
                assertTrue(Files.readAllLines(f).contains(line), Files.readString(f));
            }
            try (SpinelServer restarted = SpinelServer.start(ServerConfig.fromArgs(new String[] {f.toString()}));
                 RawClient c = new RawClient(restarted.port())) {
                assertTrue(new String(c.call("ROLE")).contains("slave"), "not a replica after the restart");
                assertEquals("+OK\r\n", c.callString("REPLICAOF", "NO", "ONE"));
                assertEquals("+OK\r\n", c.callString("CONFIG", "REWRITE"));
                assertFalse(Files.readString(f).contains("replicaof"), Files.readString(f));
            }
        }
    }
}
