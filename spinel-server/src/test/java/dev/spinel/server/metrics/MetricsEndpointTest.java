package dev.spinel.server.metrics;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The Prometheus endpoint: redis_exporter's names with INFO's values, Spinel's own metrics, and CONFIG SET of its port. */
@Timeout(60)
class MetricsEndpointTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** A generous read timeout: the first INFO of a JVM on a loaded machine can pass Jedis's 2 s default. */
    static Jedis jedis(SpinelServer server) {
        return new Jedis("127.0.0.1", server.port(), 30_000);
    }

    static String scrape(int port) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"), r.headers().toString());
        return r.body();
    }

    /** Samples by their full text before the value ({@code redis_db_keys{db="db0"}}). */
    static Map<String, Double> samples(String body) {
        Map<String, Double> m = new HashMap<>();
        for (String line : body.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int sp = line.lastIndexOf(' ');
            m.put(line.substring(0, sp), Double.parseDouble(line.substring(sp + 1)));
        }
        return m;
    }

    static Map<String, String> info(Jedis j) {
        Map<String, String> m = new HashMap<>();
        for (String line : j.info("everything").split("\r\n")) {
            int c = line.indexOf(':');
            if (c > 0 && !line.startsWith("#")) {
                m.put(line.substring(0, c), line.substring(c + 1));
            }
        }
        return m;
    }

    @Test
    void offByDefault() {
        try (SpinelServer server = SpinelServer.startEphemeral()) {
            assertEquals(0, server.metrics().port());
            try (Jedis j = jedis(server)) {
                assertEquals(List.of("metrics-port", "0"), j.configGet("metrics-port").entrySet().stream()
                        .flatMap(e -> java.util.stream.Stream.of(e.getKey(), e.getValue())).toList());
                assertEquals("127.0.0.1", j.configGet("metrics-bind").get("metrics-bind"));
            }
        }
    }

    @Test
    void redisExporterNamesCarryInfoValues() throws Exception {
        int mport = freePort();
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("metrics-port", Integer.toString(mport)));
             Jedis j = jedis(server)) {
            assertEquals(mport, server.metrics().port());
            j.set("a", "1");
            j.set("b", "2");
            j.expire("b", 1000);
            j.get("a");
            j.get("missing");
            j.get("missing2");
            j.select(3);
            j.set("c", "3");
            j.select(0);
            j.set("s", "x");
            try {
                j.incr("s");
            } catch (RuntimeException expected) {
                // ERR value is not an integer: one error reply
            }
            Map<String, String> info = info(j);
            Map<String, Double> m = samples(scrape(mport));
            assertEquals(1.0, m.get("redis_up"));
            assertEquals(Double.parseDouble(info.get("keyspace_hits")), m.get("redis_keyspace_hits_total"));
            assertEquals(Double.parseDouble(info.get("keyspace_misses")), m.get("redis_keyspace_misses_total"));
            assertEquals(Double.parseDouble(info.get("connected_clients")), m.get("redis_connected_clients"));
            // The cron re-samples the clients' buffers between INFO and the scrape (a reply buffer grown for INFO's
            // reply counts from then on): the same figure, read a moment apart.
            assertEquals(Double.parseDouble(info.get("used_memory")), m.get("redis_memory_used_bytes"), 256 * 1024);
            assertEquals(Double.parseDouble(info.get("expired_keys")), m.get("redis_expired_keys_total"));
            assertEquals(Double.parseDouble(info.get("evicted_keys")), m.get("redis_evicted_keys_total"));
            assertEquals(Double.parseDouble(info.get("total_error_replies")), m.get("redis_total_error_replies_total"));
            // errorstats: the INCR above, and whatever the client's handshake drew (Jedis's CLIENT SETINFO is 7.2's)
            assertEquals(Double.parseDouble(field(info.get("errorstat_ERR"), "count")), m.get("redis_errors_total{err=\"ERR\"}"));
            assertTrue(Math.abs(Double.parseDouble(info.get("uptime_in_seconds")) - m.get("redis_uptime_in_seconds")) <= 1);
            assertEquals(3.0, m.get("redis_db_keys{db=\"db0\"}"), "a, b and s");
            assertEquals(1.0, m.get("redis_db_keys_expiring{db=\"db0\"}"));
            assertEquals(1.0, m.get("redis_db_keys{db=\"db3\"}"));
            assertEquals(0.0, m.get("redis_db_keys{db=\"db15\"}"));
            // commandstats: calls, and usec as seconds, the same figures INFO gives (INFO itself has run once since)
            String set = info.get("cmdstat_set");
            assertEquals(Double.parseDouble(field(set, "calls")), m.get("redis_commands_total{cmd=\"set\"}"));
            assertEquals(Double.parseDouble(field(set, "usec")) / 1e6, m.get("redis_commands_duration_seconds_total{cmd=\"set\"}"), 1e-9);
            assertEquals(3.0, m.get("redis_commands_total{cmd=\"get\"}"));
            assertEquals(1.0, m.get("redis_commands_failed_calls_total{cmd=\"incr\"}"));
            assertTrue(m.containsKey("redis_commands_total{cmd=\"config|get\"}") || !info.containsKey("cmdstat_config|get"));
            assertEquals(Double.parseDouble(info.get("maxclients")), m.get("redis_config_maxclients"));
            // Spinel's own: per-loop CPU time, JVM GC pauses, process figures
            assertTrue(m.keySet().stream().anyMatch(k -> k.startsWith("spinel_event_loop_busy_seconds_total{loop=\"spinel-loop")), m.keySet().toString());
            assertTrue(m.containsKey("spinel_aof_fsync_seconds_count"));
            assertTrue(m.keySet().stream().anyMatch(k -> k.startsWith("jvm_gc_collection_seconds_count{")), "GC pauses");
            assertTrue(m.containsKey("process_resident_memory_bytes"));
        }
    }

    private static String field(String cmdstat, String name) {
        for (String kv : cmdstat.split(",")) {
            if (kv.startsWith(name + "=")) {
                return kv.substring(name.length() + 1);
            }
        }
        throw new AssertionError(name + " not in " + cmdstat);
    }

    @Test
    void aofFsyncsAreCountedAndTimed(@TempDir Path dir) throws Exception {
        int mport = freePort();
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", "yes").with("appendfsync", "always").with("metrics-port", Integer.toString(mport)));
             Jedis j = jedis(server)) { // each SET waits for an fsync: slow on a busy disk
            for (int i = 0; i < 5; i++) {
                j.set("k" + i, "v");
            }
            Map<String, Double> m = samples(scrape(mport));
            assertTrue(m.get("spinel_aof_fsync_seconds_count") >= 1, m.toString());
            assertTrue(m.get("spinel_aof_fsync_seconds_sum") > 0);
            assertEquals(1.0, m.get("redis_aof_enabled"));
        }
    }

    @Test
    void configSetStartsMovesAndStopsTheEndpoint() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); Jedis j = jedis(server)) {
            int first = freePort();
            assertEquals("OK", j.configSet("metrics-port", Integer.toString(first)));
            assertTrue(scrape(first).contains("redis_up 1"));
            int second = freePort();
            assertEquals("OK", j.configSet("metrics-port", Integer.toString(second)));
            assertTrue(scrape(second).contains("redis_connected_clients 1"));
            assertThrows(ConnectException.class, () -> scrape(first));
            try (ServerSocket taken = new ServerSocket(0)) {
                var e = assertThrows(RuntimeException.class, () -> j.configSet("metrics-port", Integer.toString(taken.getLocalPort())));
                assertTrue(e.getMessage().contains("Unable to listen on this port"), e.getMessage());
            }
            assertEquals(Integer.toString(second), j.configGet("metrics-port").get("metrics-port"));
            assertTrue(scrape(second).contains("redis_up 1"), "still serving after the failed move");
            assertEquals("OK", j.configSet("metrics-port", "0"));
            assertThrows(ConnectException.class, () -> scrape(second));
            assertEquals(0, server.metrics().port());
        }
    }

    @Test
    void startsFromTheConfigFile(@TempDir Path dir) throws Exception {
        int mport = freePort();
        Path conf = dir.resolve("spinel.conf");
        Files.writeString(conf, "port 0\nmetrics-port " + mport + "\nmetrics-bind 127.0.0.1\n");
        try (SpinelServer server = SpinelServer.start(ServerConfig.fromArgs(new String[]{conf.toString()}))) {
            assertTrue(scrape(mport).contains("redis_up 1"));
        }
    }

    /** promtool (the prometheus Debian package, installed by .ci/run) lints the exposition. */
    @Test
    void promtoolAcceptsTheExposition() throws Exception {
        Path promtool = Path.of("/usr/bin/promtool");
        assumeTrue(Files.isExecutable(promtool), "promtool is not installed (apt-get install prometheus); skipping its lint");
        int mport = freePort();
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("metrics-port", Integer.toString(mport)));
             Jedis j = jedis(server)) {
            j.set("a", "1");
            j.configGet("maxmemory");
            String body = scrape(mport);
            Process p = new ProcessBuilder(promtool.toString(), "check", "metrics").redirectErrorStream(true).start();
            p.getOutputStream().write(body.getBytes());
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes());
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), out);
        }
    }
}
