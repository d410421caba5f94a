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
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    /**
     * Every parameter of Redis 7.0.15, as redis-server writes them all with their defaults (DEBUG
     * CONFIG-REWRITE-FORCE-ALL; a superset of its default redis.conf's lines, which failed to load on
     * repl-disable-tcp-nodelay before; latency-tracking-info-percentiles' several values failed too), loads in Spinel
     * but those listed: Spinel refuses them as unknown
     * (docs/compatibility.md, "Redis 7.0 parameters Spinel does not take").
     */
    @Test
    void everyParameterOfRedisLoadsButTheListedOnes() throws Exception {
        Path conf = dir.resolve("all.conf");
        Files.writeString(conf, "");
        int port = RedisServerProcess.freePort();
        Process p = new ProcessBuilder(RedisServerProcess.executable(), conf.toString(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--dir", dir.toString(), "--loglevel", "warning",
                "--enable-debug-command", "yes").redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        try {
            waitForPort(p, port);
            try (RawClient c = new RawClient(port)) {
                assertEquals("+OK\r\n", c.callString("DEBUG", "CONFIG-REWRITE-FORCE-ALL"));
            }
        } finally {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        Set<String> refused = new TreeSet<>();
        int loaded = 0;
        for (String line : Files.readAllLines(conf, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            try {
                ServerConfig.defaults().load(line);
                loaded++;
            } catch (ConfigException e) {
                refused.add(line.split(" ")[0]);
            }
        }
        assertTrue(loaded > 140, "lines loaded: " + loaded); // 145 of redis-server 7.0.15's 154 lines
        // (watchdog-period: Redis's hidden debugging knob; lua-enable-deprecated-api: the apt package's backport)
        Set<String> notTaken = Set.of("cluster-link-sendbuf-limit",
                "replica-ignore-disk-write-errors", "tls-cluster", "tls-dh-params-file", "tls-session-cache-size",
                "tls-session-cache-timeout", "tls-session-caching", "watchdog-period", "lua-enable-deprecated-api");
        refused.removeAll(notTaken);
        assertEquals(Set.of(), refused, "Redis 7.0 parameters Spinel refuses");
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
