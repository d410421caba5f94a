package dev.spinel.server.metrics;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A real Prometheus server (the prometheus Debian package, which .ci/run installs) scrapes Spinel's endpoint, and its
 * query API then answers with Spinel's figures: the endpoint works as a Prometheus target, not only as text.
 */
@Timeout(180)
class PrometheusScrapeTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void prometheusScrapesSpinel(@TempDir Path dir) throws Exception {
        Path prometheus = Path.of("/usr/bin/prometheus");
        assumeTrue(Files.isExecutable(prometheus), "prometheus is not installed (apt-get install prometheus); skipping the scrape");
        int mport = MetricsEndpointTest.freePort();
        int promPort = MetricsEndpointTest.freePort();
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("metrics-port", Integer.toString(mport)));
             Jedis j = MetricsEndpointTest.jedis(server)) {
            for (int i = 0; i < 7; i++) {
                j.set("key" + i, "v");
            }
            Path conf = dir.resolve("prometheus.yml");
            Files.writeString(conf, """
                    global:
                      scrape_interval: 1s
                    scrape_configs:
                      - job_name: spinel
                        static_configs:
                          - targets: ["127.0.0.1:%d"]
                    """.formatted(mport));
            Process p = new ProcessBuilder(prometheus.toString(), "--config.file=" + conf,
                    "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + promPort)
                    .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
            try {
                String keys = "";
                long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (!keys.contains("\"7\"") && System.nanoTime() < giveUp) {
                    Thread.sleep(500);
                    keys = query(promPort, "redis_db_keys{db=\"db0\",job=\"spinel\"}");
                }
                assertTrue(keys.contains("\"7\""), keys + "\n" + Files.readString(dir.resolve("prometheus.log")));
                assertTrue(query(promPort, "redis_commands_total{cmd=\"set\"}").contains("\"7\""));
                assertTrue(query(promPort, "up{job=\"spinel\"}").contains("\"1\""), "the target is up");
            } finally {
                p.destroy();
                if (!p.waitFor(20, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }

    /** The query API's JSON for an instant query; empty when Prometheus is not answering yet. */
    private static String query(int port, String promql) throws InterruptedException {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/query?query="
                    + URLEncoder.encode(promql, StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException notYet) {
            return "";
        }
    }
}
