package dev.spinel.server.metrics;

import dev.spinel.protocol.Version;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.Command;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.pubsub.PubSub;
import dev.spinel.server.stats.ServerStats;
import dev.spinel.store.Keyspace;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The figures of INFO under the names and labels {@code redis_exporter} gives them ({@code redis_commands_total{cmd}},
 * {@code redis_db_keys{db="db0"}}, {@code redis_keyspace_hits_total}, ...), so that dashboards and alerts written for
 * Redis work unchanged. Everything is read from the engine's existing counters when Prometheus scrapes: serving
 * commands costs nothing more.
 *
 * <p>Thread-safety: {@link #collect} may run on any thread, concurrently with commands; each figure is read as INFO
 * reads it (a sum of per-loop counters, slightly stale at worst).
 */
final class RedisMetrics implements MultiCollector {
    private final Engine engine;
    private final IntSupplier tcpPort;
    private final LongSupplier changesSinceLastSave;

    RedisMetrics(Engine engine, IntSupplier tcpPort, LongSupplier changesSinceLastSave) {
        this.engine = engine;
        this.tcpPort = tcpPort;
        this.changesSinceLastSave = changesSinceLastSave;
    }

    @Override
    public MetricSnapshots collect() {
        ServerStats st = engine.stats();
        ServerConfig c = engine.config();
        Keyspace ks = engine.keyspace();
        List<MetricSnapshot> out = new ArrayList<>(40);
        out.add(gauge("redis_up", "Information about the Redis instance", 1));
        out.add(InfoSnapshot.builder().name("redis_instance").help("Information about the Redis instance")
                .dataPoint(InfoSnapshot.InfoDataPointSnapshot.builder().labels(Labels.of(
                        "redis_version", Version.REDIS, "spinel_version", Version.SPINEL, "redis_mode", "standalone",
                        "role", "master", "os", System.getProperty("os.name") + " " + System.getProperty("os.version"),
                        "maxmemory_policy", c.maxmemoryPolicy.value(), "tcp_port", Integer.toString(tcpPort.getAsInt()),
                        "process_id", Long.toString(ProcessHandle.current().pid()))).build())
                .build());
        out.add(gauge("redis_uptime_in_seconds", "uptime_in_seconds metric",
                (System.currentTimeMillis() - st.startMillis) / 1000));
        out.add(gauge("redis_start_time_seconds", "Start time of the Redis instance since unix epoch in seconds.",
                st.startMillis / 1000));
        out.add(gauge("redis_connected_clients", "connected_clients metric", engine.clients().size()));
        out.add(gauge("redis_blocked_clients", "blocked_clients metric",
                engine.blocking().blockedClients() + engine.pause().postponedCount()));
        out.add(gauge("redis_config_maxclients", "config_maxclients metric", c.maxclients.value()));
        out.add(gauge("redis_memory_used_bytes", "memory_used_bytes metric", engine.memory().used())); // INFO's used_memory
        out.add(gauge("redis_memory_max_bytes", "memory_max_bytes metric", c.maxmemory.value()));
        out.add(gauge("redis_config_maxmemory", "config_maxmemory metric", c.maxmemory.value()));
        out.add(counter("redis_connections_received", "connections_received_total metric", st.connectionsReceived.sum()));
        out.add(counter("redis_rejected_connections", "rejected_connections_total metric", st.rejectedConnections.sum()));
        out.add(counter("redis_commands_processed", "commands_processed_total metric", st.commandsProcessed.sum()));
        // No redis_instantaneous_ops_per_sec: promtool refuses its abbreviated unit; rate(redis_commands_processed_total) is it.
        out.add(counter("redis_net_input_bytes", "net_input_bytes_total metric", st.netInputBytes.sum()));
        out.add(counter("redis_net_output_bytes", "net_output_bytes_total metric", st.netOutputBytes.sum()));
        out.add(counter("redis_keyspace_hits", "keyspace_hits_total metric", st.keyspaceHits.sum()));
        out.add(counter("redis_keyspace_misses", "keyspace_misses_total metric", st.keyspaceMisses.sum()));
        out.add(counter("redis_expired_keys", "expired_keys_total metric", ks.expiredKeys()));
        out.add(counter("redis_evicted_keys", "evicted_keys_total metric", engine.evictor().evictedKeys()));
        PubSub<?> pubSub = engine.pubSub();
        out.add(gauge("redis_pubsub_channels", "pubsub_channels metric", pubSub.channels(PubSub.Kind.CHANNEL, null).size()));
        out.add(gauge("redis_pubsub_patterns", "pubsub_patterns metric", pubSub.patternCount()));
        out.add(gauge("redis_rdb_changes_since_last_save", "rdb_changes_since_last_save metric",
                changesSinceLastSave.getAsLong()));
        out.add(gauge("redis_aof_enabled", "aof_enabled metric", c.appendonly.value() ? 1 : 0));
        out.add(counter("redis_total_error_replies", "total_error_replies metric", st.totalErrorReplies.sum()));
        CounterSnapshot.Builder errors = CounterSnapshot.builder().name("redis_errors").help("Total number of errors per error type");
        for (Map.Entry<String, LongAdder> e : new TreeMap<>(st.errors()).entrySet()) {
            errors.dataPoint(CounterDataPointSnapshot.builder().labels(Labels.of("err", e.getKey()))
                    .value(e.getValue().sum()).build());
        }
        out.add(errors.build());
        keyspace(out, ks);
        commands(out);
        return new MetricSnapshots(out);
    }

    /** Every database, empty ones too (redis_exporter pads to {@code databases}), labelled {@code db0}, {@code db1}, ... */
    private static void keyspace(List<MetricSnapshot> out, Keyspace ks) {
        GaugeSnapshot.Builder keys = GaugeSnapshot.builder().name("redis_db_keys").help("Total number of keys by DB");
        GaugeSnapshot.Builder expiring = GaugeSnapshot.builder().name("redis_db_keys_expiring")
                .help("Total number of expiring keys by DB");
        for (int i = 0; i < ks.databases(); i++) {
            Labels db = Labels.of("db", "db" + i);
            keys.dataPoint(GaugeDataPointSnapshot.builder().labels(db).value(ks.db(i).size()).build());
            expiring.dataPoint(GaugeDataPointSnapshot.builder().labels(db).value(ks.db(i).volatileCount()).build());
        }
        out.add(keys.build());
        out.add(expiring.build());
    }

    /** INFO commandstats: the commands called at least once, subcommands as {@code config|get}, as redis_exporter labels them. */
    private void commands(List<MetricSnapshot> out) {
        CounterSnapshot.Builder calls = CounterSnapshot.builder().name("redis_commands")
                .help("Total number of calls per command");
        CounterSnapshot.Builder seconds = CounterSnapshot.builder().name("redis_commands_duration_seconds")
                .help("Total amount of time in seconds spent per command");
        CounterSnapshot.Builder rejected = CounterSnapshot.builder().name("redis_commands_rejected_calls")
                .help("Total number of errors prior command execution per command");
        CounterSnapshot.Builder failed = CounterSnapshot.builder().name("redis_commands_failed_calls")
                .help("Total number of errors within command execution per command");
        for (Command cmd : engine.commands().allWithSubcommands()) {
            long n = cmd.calls();
            long r = cmd.rejectedCalls();
            long f = cmd.failedCalls();
            if (n == 0 && r == 0 && f == 0) {
                continue;
            }
            Labels l = Labels.of("cmd", cmd.name());
            calls.dataPoint(CounterDataPointSnapshot.builder().labels(l).value(n).build());
            seconds.dataPoint(CounterDataPointSnapshot.builder().labels(l).value(cmd.micros() / 1e6).build());
            rejected.dataPoint(CounterDataPointSnapshot.builder().labels(l).value(r).build());
            failed.dataPoint(CounterDataPointSnapshot.builder().labels(l).value(f).build());
        }
        out.add(calls.build());
        out.add(seconds.build());
        out.add(rejected.build());
        out.add(failed.build());
    }

    static GaugeSnapshot gauge(String name, String help, double value) {
        return GaugeSnapshot.builder().name(name).help(help)
                .dataPoint(GaugeDataPointSnapshot.builder().value(value).build()).build();
    }

    /** A counter; the exposition adds {@code _total} to the name. */
    static CounterSnapshot counter(String name, String help, double value) {
        return CounterSnapshot.builder().name(name).help(help)
                .dataPoint(CounterDataPointSnapshot.builder().value(value).build()).build();
    }
}
