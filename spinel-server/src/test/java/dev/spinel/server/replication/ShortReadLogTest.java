package dev.spinel.server.replication;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import dev.spinel.server.testing.SpinelProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A diskless load (repl-diskless-load swapdb) whose transfer the master cuts halfway: the replica logs Redis's short
 * read lines ("Internal error in RDB reading offset ... assuming connection error, resuming operation", which
 * replication.tcl "diskless loading short read" waits for), keeps its data, reconnects and loads the next transfer
 * whole. A redis-server replica and a Spinel replica (a process of its own, so its log is a file) of the same
 * scripted master, each log checked for the same lines.
 */
class ShortReadLogTest {
    private static final String MARK = "0123456789abcdef0123456789abcdef01234567";

    @TempDir
    Path dir;

    @Test
    void aCutTransferIsLoggedAsAShortReadAndTheReplicaResumes() throws Exception {
        byte[] rdb = redisRdb();
        try (ServerSocket fake = new ServerSocket(0);
             RedisServerProcess redis = RedisServerProcess.start("--loglevel", "notice", "--repl-diskless-load", "swapdb",
                     "--replicaof", "127.0.0.1", Integer.toString(fake.getLocalPort()))) {
            cutThenWhole(fake, rdb, redis.dir().resolve("redis.log"), redis.port());
        }
        try (ServerSocket fake = new ServerSocket(0)) {
            int port = RedisServerProcess.freePort();
            Path log = dir.resolve("spinel.log");
            Process p = new ProcessBuilder(SpinelProcess.command("--port", Integer.toString(port),
                    "--dir", dir.toString(), "--grpc-port", "0", "--repl-diskless-load", "swapdb",
                    "--replicaof", "127.0.0.1", Integer.toString(fake.getLocalPort())))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                cutThenWhole(fake, rdb, log, port);
            } finally {
                p.destroy();
                p.waitFor(20, TimeUnit.SECONDS);
            }
        }
    }

    private static void cutThenWhole(ServerSocket fake, byte[] rdb, Path log, int port) throws Exception {
        fake.setSoTimeout(60_000);
        try (Socket link = fake.accept()) {
            OutputStream out = FakeMasterIo.handshake(link);
            out.write(("$EOF:" + MARK + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(rdb, 0, rdb.length / 2);
            out.flush();
            awaitLog(log, "MASTER <-> REPLICA sync: Loading DB in memory", 0);
        } // cut halfway
        int cutAt = awaitLog(log, "Internal error in RDB reading offset", 0);
        String line = Files.readAllLines(log).get(cutAt);
        assertTrue(line.endsWith("Failure loading rdb format from socket, assuming connection error, resuming operation."), line);
        awaitLog(log, "Failed trying to load the MASTER synchronization DB from socket", cutAt);
        try (Socket link = fake.accept(); RawClient c = new RawClient(port)) { // the replica comes back
            OutputStream out = FakeMasterIo.handshake(link);
            out.write(("$EOF:" + MARK + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(rdb);
            out.write(MARK.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            awaitLog(log, "MASTER <-> REPLICA sync: Finished with success", cutAt);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!c.callString("DBSIZE").equals(":100\r\n")) {
                assertTrue(System.nanoTime() < deadline, c.callString("DBSIZE"));
                Thread.sleep(50);
            }
            assertEquals("$2\r\nv7\r\n", c.callString("GET", "k7"));
        }
    }

    /** Waits for a line containing {@code text} after line {@code from}; returns its index. */
    private static int awaitLog(Path log, String text, int from) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            List<String> lines = Files.readAllLines(log);
            for (int i = from; i < lines.size(); i++) {
                if (lines.get(i).contains(text)) {
                    return i;
                }
            }
            assertTrue(System.nanoTime() < deadline, "no '" + text + "' in " + String.join("\n", lines));
            Thread.sleep(50);
        }
    }

    private static byte[] redisRdb() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start();
             RawClient r = new RawClient(redis.port())) {
            for (int i = 0; i < 100; i++) {
                r.callString("SET", "k" + i, "v" + i);
            }
            assertEquals("+OK\r\n", r.callString("SAVE"));
            return Files.readAllBytes(redis.dir().resolve("dump.rdb"));
        }
    }
}
