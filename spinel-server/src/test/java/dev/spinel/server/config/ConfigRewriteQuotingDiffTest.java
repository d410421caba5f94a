package dev.spinel.server.config;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * CONFIG REWRITE writes string parameters as Redis's {@code sdscatrepr} quotes them (always in double quotes,
 * bytes outside printable ASCII as {@code \xhh}), and the address lists of {@code bind} and {@code replicaof} as
 * plain words: the lines compared with redis-server's, byte for byte.
 */
class ConfigRewriteQuotingDiffTest {
    /** Parameter, then the CONFIG SET value. */
    private static final List<String[]> SET = List.of(
            new String[]{"masteruser", "plain"},
            new String[]{"masterauth", "é\u0001 x\"\\'"},
            new String[]{"replica-announce-ip", "10.0.0.1"},
            new String[]{"ignore-warnings", "ARM64-COW-BUG"},
            new String[]{"requirepass", "pw"},
            new String[]{"bind", "127.0.0.1 -::1"});

    @TempDir
    Path dir;

    @Test
    void stringParametersAreQuotedAsRedisQuotesThem() throws Exception {
        Path spinelConf = dir.resolve("spinel.conf");
        Files.writeString(spinelConf, "port 0\n");
        List<String> spinel;
        try (SpinelServer server = SpinelServer.start(ServerConfig.fromArgs(new String[]{spinelConf.toString()}))) {
            spinel = setAndRewrite(server.port(), spinelConf);
        }
        assertEquals(redis(), spinel);
    }

    private List<String> redis() throws Exception {
        Path conf = dir.resolve("redis.conf");
        Files.writeString(conf, "");
        int port = RedisServerProcess.freePort();
        Process p = new ProcessBuilder(RedisServerProcess.executable(), conf.toString(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--dir", dir.toString(), "--loglevel", "warning")
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        try {
            waitForPort(p, port);
            return setAndRewrite(port, conf);
        } finally {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Sets every value of {@link #SET}, rewrites, and returns the file's lines for those parameters. */
    private static List<String> setAndRewrite(int port, Path conf) throws IOException {
        try (RawClient c = new RawClient(port)) {
            for (String[] kv : SET) {
                assertEquals("+OK\r\n", c.callString("CONFIG", "SET", kv[0], kv[1]), kv[0]);
            }
            assertEquals("+OK\r\n", c.callString("CONFIG", "REWRITE"));
        }
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(conf, StandardCharsets.UTF_8)) {
            for (String[] kv : SET) {
                if (line.startsWith(kv[0] + " ")) {
                    lines.add(line);
                }
            }
        }
        lines.sort(null);
        return lines;
    }

    private static void waitForPort(Process p, int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline && p.isAlive()) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                Thread.sleep(20);
            }
        }
        throw new IllegalStateException("redis-server did not start on port " + port);
    }
}
