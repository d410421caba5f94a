package dev.spinel.server.config;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import dev.spinel.server.testing.SpinelProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.spinel.server.testing.Await.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A relative {@code logfile} and {@code pidfile} are under {@code dir}, not the process's working directory:
 * redis-server 7.0.15 chdir()s into {@code dir} while it reads its configuration (even when {@code logfile} comes
 * first). Redis's legacy cluster suite starts every node from one working directory with {@code logfile "log.txt"}
 * and its own {@code dir}, and reads each node's log there. Both servers run as processes started in a working
 * directory of their own; where the files appear must be the same.
 */
class RelativeFilesUnderDirDiffTest {
    @TempDir
    Path tmp;

    @Test
    @Timeout(120)
    void relativeLogAndPidFilesAreWrittenUnderDir() throws Exception {
        List<String> redis = run(false);
        assertEquals(List.of("dir/rel.log", "dir/rel.pid", "after shutdown: dir/rel.log"), redis);
        assertEquals(redis, run(true));
    }

    /** Starts one server (logfile before dir on the command line), lists the files, shuts it down, lists again. */
    private List<String> run(boolean spinel) throws Exception {
        Path base = Files.createDirectories(tmp.resolve(spinel ? "spinel" : "redis"));
        Path cwd = Files.createDirectories(base.resolve("cwd"));
        Path dir = Files.createDirectories(base.resolve("dir"));
        int port = RedisServerProcess.freePort();
        List<String> cmd = new ArrayList<>(spinel ? SpinelProcess.command("--grpc-port", "0") : List.of(RedisServerProcess.executable()));
        cmd.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1", "--logfile", "rel.log",
                "--pidfile", "rel.pid", "--dir", dir.toString(), "--save", "", "--appendonly", "no"));
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true)
                .redirectOutput(base.resolve("stdout").toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try (Socket s = new Socket("127.0.0.1", port)) {
                    break;
                } catch (IOException notYet) {
                    assertTrue(p.isAlive() && System.nanoTime() < deadline, "server did not start");
                    Thread.sleep(20);
                }
            }
            waitFor(() -> files(base).contains("dir/rel.pid") && files(base).contains("dir/rel.log")
                    || files(base).contains("cwd/rel.log"), "the log and pid files");
            List<String> seen = new ArrayList<>(files(base));
            try (RawClient c = new RawClient(port)) {
                c.send(List.of("SHUTDOWN".getBytes(), "NOSAVE".getBytes()));
            } catch (IOException closed) {
                // the server closes the connection as it exits
            }
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "server still running");
            for (String f : files(base)) {
                seen.add("after shutdown: " + f);
            }
            return seen;
        } finally {
            p.destroyForcibly();
        }
    }

    /** The log and pid files under {@code cwd/} and {@code dir/}, sorted. */
    private static List<String> files(Path base) {
        List<String> out = new ArrayList<>();
        for (String d : List.of("cwd", "dir")) {
            for (String f : List.of("rel.log", "rel.pid")) {
                if (Files.exists(base.resolve(d).resolve(f))) {
                    out.add(d + "/" + f);
                }
            }
        }
        return out;
    }
}
