package dev.spinel.server.metrics;

import dev.spinel.server.config.ConfigException;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.log.Log;
import dev.spinel.server.stats.DurationTotal;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.IOException;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The Prometheus endpoint: {@code http://metrics-bind:metrics-port/metrics} in the text exposition format, serving
 * {@link RedisMetrics} (redis_exporter's names), {@link SpinelMetrics} (event loops, AOF fsync), the JVM's own
 * (GC pauses, heap, threads, process CPU and RSS) and whatever front ends register in {@link #registry()} (gRPC calls).
 * Off while {@code metrics-port} is 0. It runs on the JDK's HTTP server with its own daemon threads, so a scrape never
 * occupies an event loop.
 *
 * <p>Thread-safety: {@link #apply} and {@link #close} are synchronized; the registry is safe to register in from
 * any thread.
 */
public final class MetricsEndpoint implements AutoCloseable {
    private final ServerConfig config;
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private HTTPServer http;
    private int boundPort;
    private String boundAddress;

    public MetricsEndpoint(Engine engine, IntSupplier tcpPort, LongSupplier changesSinceLastSave,
                           Supplier<List<Thread>> loops, DurationTotal aofFsync) {
        this.config = engine.config();
        registry.register(new RedisMetrics(engine, tcpPort, changesSinceLastSave));
        registry.register(new SpinelMetrics(loops, aofFsync));
        registry.register((MultiCollector) MetricsEndpoint::jvmMetrics);
    }

    /**
     * The JVM's metrics, registered once per process: some of them (allocation counters) hang listeners on the JVM's
     * GC beans for good, so registering them per server would keep every stopped server's registry alive.
     */
    private static PrometheusRegistry jvm;

    private static synchronized MetricSnapshots jvmMetrics() {
        if (jvm == null) {
            jvm = new PrometheusRegistry();
            JvmMetrics.builder().register(jvm);
        }
        return jvm.scrape();
    }

    /** Where front ends add their metrics (the gRPC service's calls by method and code). */
    public PrometheusRegistry registry() {
        return registry;
    }

    /** The port the endpoint listens on; 0 when it is off. */
    public synchronized int port() {
        return http == null ? 0 : http.getPort();
    }

    /**
     * Makes the endpoint match {@code metrics-port} and {@code metrics-bind}: starts, moves or stops it. When the new
     * address cannot be bound the reason is logged and this throws (an endpoint on another port keeps serving).
     */
    public synchronized void apply() throws ConfigException {
        int wantedPort = (int) config.metricsPort.value();
        String wantedAddress = config.metricsBind.value();
        if (http != null && wantedPort == boundPort && wantedAddress.equals(boundAddress)) {
            return;
        }
        if (wantedPort == 0) {
            stop();
            return;
        }
        HTTPServer started;
        HTTPServer old = http;
        if (old != null && wantedPort == boundPort) {
            stop(); // the same port on another address: free it first
        }
        try {
            started = HTTPServer.builder().hostname(wantedAddress).port(wantedPort).registry(registry).buildAndStart();
        } catch (IOException | RuntimeException e) {
            Log.warning("Could not start the metrics endpoint on " + wantedAddress + ":" + wantedPort + ": " + e.getMessage());
            throw new ConfigException("Unable to listen on this port. Check server logs.");
        }
        stop();
        http = started;
        boundPort = wantedPort;
        boundAddress = wantedAddress;
        Log.notice("Metrics endpoint (Prometheus) listening on http://" + wantedAddress + ":" + wantedPort + "/metrics");
    }

    private void stop() {
        if (http != null) {
            http.stop();
            http = null;
        }
    }

    @Override
    public synchronized void close() {
        stop();
    }
}
