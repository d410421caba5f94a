package dev.spinel.server.replication;

import dev.spinel.server.testing.RedisServerProcess;
import dev.spinel.server.testing.SpinelProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A master that accepts the link but never answers the handshake: the replica gives up after repl-timeout and logs
 * Redis's "Timeout connecting to the MASTER..." (replication.tcl "Slave is able to detect timeout during handshake"
 * waits for that line). A Spinel process of its own, so its log is a file.
 */
class HandshakeTimeoutLogTest {
    @TempDir
    Path dir;

    @Test
    void aSilentMasterIsATimeoutConnectingToTheMaster() throws Exception {
        try (ServerSocket silent = new ServerSocket(0)) {
            int port = RedisServerProcess.freePort();
            Path log = dir.resolve("spinel.log");
            Process p = new ProcessBuilder(SpinelProcess.command("--port", Integer.toString(port),
                    "--dir", dir.toString(), "--grpc-port", "0", "--repl-timeout", "1",
                    "--replicaof", "127.0.0.1", Integer.toString(silent.getLocalPort())))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try (Socket accepted = silent.accept()) { // then says nothing
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!Files.readString(log).contains("Timeout connecting to the MASTER...")) {
                    assertTrue(System.nanoTime() < deadline, Files.readString(log));
                    Thread.sleep(100);
                }
            } finally {
                p.destroy();
                p.waitFor(20, TimeUnit.SECONDS);
            }
        }
    }
}
