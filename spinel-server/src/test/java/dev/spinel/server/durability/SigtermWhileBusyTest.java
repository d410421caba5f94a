package dev.spinel.server.durability;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import dev.spinel.server.testing.SpinelProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.spinel.server.testing.Await.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGTERM stops the server process within seconds while a script never ends (Redis 7.0 would wait for the
 * script; before, Spinel needed SIGKILL): a script that wrote is left behind, every write acknowledged
 * before it is in the append-only log after a restart and none of the script's; a script that did not
 * write is killed and the final RDB snapshot is saved as the save points ask.
 */
class SigtermWhileBusyTest {
    @TempDir
    Path dir;

    private Process startSpinel(int port, String... extra) throws Exception {
        List<String> cmd = SpinelProcess.command("--port", Integer.toString(port), "--dir", dir.toString(), "--grpc-port", "0",
                "--busy-reply-threshold", "200");
        cmd.addAll(List.of(extra));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("spinel.log").toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                return p;
            } catch (IOException notYet) {
                assertTrue(p.isAlive(), "spinel exited; see " + readLog());
                Thread.sleep(50);
            }
        }
        p.destroyForcibly();
        throw new AssertionError("spinel did not start");
    }

    private String readLog() throws IOException {
        return Files.readString(dir.resolve("spinel.log"));
    }

    private static byte[] sets(int n) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = 0; i < n; i++) {
            b.writeBytes(RawClient.encode(List.of("SET".getBytes(StandardCharsets.US_ASCII),
                    ("k" + i).getBytes(StandardCharsets.US_ASCII), ("v" + i).getBytes(StandardCharsets.US_ASCII))));
        }
        return b.toByteArray();
    }

    /** SIGTERM, then the process must be gone within 20 s (bounded waits of a few seconds each; the JVM's own exit). */
    private void terminate(Process p) throws Exception {
        p.destroy(); // SIGTERM
        boolean exited = p.waitFor(20, TimeUnit.SECONDS);
        if (!exited) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        assertTrue(exited, "still running 20 s after SIGTERM; log:\n" + readLog());
    }

    /** Until other clients get -BUSY: the script runs and is past busy-reply-threshold. */
    private static void awaitBusy(RawClient c) throws Exception {
        waitFor(() -> c.callString("PING").startsWith("-BUSY "), "the script to run and be busy");
    }

    @Test
    @Timeout(180)
    void sigtermLeavesAScriptThatWroteAndKeepsEveryAcknowledgedWrite() throws Exception {
        int port = RedisServerProcess.freePort();
        Process spinel = startSpinel(port, "--appendonly", "yes", "--save", "");
        try (RawClient c = new RawClient(port); RawClient runner = new RawClient(port)) {
            c.sendRaw(sets(200));
            for (int i = 0; i < 200; i++) {
                assertEquals("+OK\r\n", new String(c.readReply(), StandardCharsets.US_ASCII));
            }
            runner.send(List.of("EVAL".getBytes(), "redis.call('set', 'inscript', '1') while true do end".getBytes(), "0".getBytes()));
            awaitBusy(c); // running, and busy (a fixed 500 ms was too short for a loaded machine: SIGTERM came first)
        }
        terminate(spinel);
        assertTrue(readLog().contains("A script that wrote is still running: exiting without the final RDB snapshot"), readLog());
        Process again = startSpinel(port, "--appendonly", "yes", "--save", "");
        try (RawClient c = new RawClient(port)) {
            // the log may still be replaying: -LOADING until it ends, as in Redis (a read faster than the replay
            // got it; the fifth pass of docs/performance.md took that for a lost write)
            waitFor(() -> !c.callString("DBSIZE").startsWith("-LOADING"), "the append-only log's replay to end");
            assertEquals(":200\r\n", c.callString("DBSIZE"));
            assertEquals("$4\r\nv199\r\n", c.callString("GET", "k199"));
            assertEquals("$-1\r\n", c.callString("GET", "inscript")); // nothing of the unfinished script
        } finally {
            terminate(again);
        }
    }

    @Test
    @Timeout(180)
    void sigtermKillsAScriptThatDidNotWriteAndSaves() throws Exception {
        int port = RedisServerProcess.freePort();
        Process spinel = startSpinel(port, "--appendonly", "no", "--save", "3600 1");
        try (RawClient c = new RawClient(port); RawClient runner = new RawClient(port)) {
            assertEquals("+OK\r\n", c.callString("SET", "before", "1"));
            runner.send(List.of("EVAL".getBytes(), "while true do end".getBytes(), "0".getBytes()));
            awaitBusy(c);
            terminate(spinel);
        }
        String log = readLog();
        assertTrue(log.contains("DB saved on disk"), log);
        assertTrue(Files.exists(dir.resolve("dump.rdb")));
        Process again = startSpinel(port, "--appendonly", "no", "--save", "");
        try (RawClient c = new RawClient(port)) {
            assertEquals("$1\r\n1\r\n", c.callString("GET", "before"));
        } finally {
            terminate(again);
        }
    }
}
