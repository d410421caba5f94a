package dev.spinel.server.commands.server;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.Version;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.Command;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.clients.MemoryAccounting;
import dev.spinel.server.engine.pubsub.PubSub;
import dev.spinel.server.engine.Session;
import dev.spinel.server.replication.GossipOffset;
import dev.spinel.server.stats.LatencyHistogram;
import dev.spinel.server.stats.ServerStats;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * INFO [section ...] with Redis 7.0's sections and field names, so that clients and tools that parse
 * INFO work unchanged. Values are Spinel's own: memory is used_memory as {@code MemoryAccounting} counts it
 * (the dataset plus a start-up baseline, clients' buffers and scripts: what maxmemory is checked against) and
 * the process's RSS; persistence and replication report a master
 * with no snapshot or replica (the truth until those exist). Replied as a bulk string (verbatim
 * "txt" in RESP3, as Redis does).
 *
 * <p>Thread-safety: reads concurrent counters and takes segment locks briefly; the peak memory is atomic.
 */
final class InfoCommand {
    private static final List<String> ORDER = List.of("server", "clients", "memory", "persistence", "stats",
            "replication", "cpu", "modules", "commandstats", "errorstats", "latencystats", "cluster", "keyspace");
    private static final Set<String> DEFAULT = Set.of("server", "clients", "memory", "persistence", "stats",
            "replication", "cpu", "modules", "errorstats", "cluster", "keyspace");
    private static final long CLOCK_TICKS = 100;

    private final ServerControl server;
    private final String runId = randomHex(40);
    private final AtomicLong peakMemory = new AtomicLong();

    private InfoCommand(ServerControl server) {
        this.server = server;
    }

    static void register(CommandTable t, ServerControl server) {
        InfoCommand info = new InfoCommand(server);
        t.register("info", info::info);
    }

    // INFO [section [section ...]]
    private void info(Session s, Args a) {
        if (a.count() == 2 && a.string(1).equalsIgnoreCase(GossipOffset.SECTION)) { // the other cluster nodes ask it
            s.out().verbatim(GossipOffset.FIELD + ":" + GossipOffset.of(server.replication()) + "\r\n");
            return;
        }
        Set<String> wanted = new LinkedHashSet<>();
        if (a.count() == 1) {
            wanted.addAll(DEFAULT);
        }
        for (int i = 1; i < a.count(); i++) {
            String sec = a.string(i).toLowerCase(Locale.ROOT);
            switch (sec) {
                case "default" -> wanted.addAll(DEFAULT);
                case "all", "everything" -> wanted.addAll(ORDER);
                default -> wanted.add(sec);
            }
        }
        Engine engine = s.engine();
        StringBuilder sb = new StringBuilder(4096);
        for (String sec : ORDER) {
            if (!wanted.contains(sec)) {
                continue;
            }
            if (!sb.isEmpty()) {
                sb.append("\r\n");
            }
            switch (sec) {
                case "server" -> server(sb, engine);
                case "clients" -> clients(sb, engine);
                case "memory" -> memory(sb, engine);
                case "persistence" -> {
                    server.persistence().appendInfo(engine.replicaRole().loading().appendInfo(sb.append("# Persistence\r\n")));
                    engine.replicaRole().loading().appendProgress(sb); // Redis 7.0: last, during a load
                }
                case "stats" -> stats(sb, engine);
                case "replication" -> replication(sb, engine);
                case "cpu" -> cpu(sb);
                case "modules" -> sb.append("# Modules\r\n");
                case "commandstats" -> commandstats(sb, engine);
                case "errorstats" -> errorstats(sb, engine);
                case "latencystats" -> latencystats(sb, engine);
                case "cluster" -> sb.append("# Cluster\r\n").append("cluster_enabled:")
                        .append(engine.config().clusterEnabled.value() ? 1 : 0).append("\r\n");
                case "keyspace" -> keyspace(sb, engine);
                default -> throw new IllegalStateException(sec);
            }
        }
        s.out().verbatim(sb.toString());
    }

    private static void field(StringBuilder sb, String name, Object value) {
        sb.append(name).append(':').append(value).append("\r\n");
    }

    private void server(StringBuilder sb, Engine e) {
        ServerConfig c = e.config();
        long nowMs = System.currentTimeMillis();
        long uptime = (nowMs - e.stats().startMillis) / 1000;
        sb.append("# Server\r\n");
        field(sb, "redis_version", Version.REDIS);
        field(sb, "spinel_version", Version.SPINEL);
        field(sb, "redis_git_sha1", "00000000");
        field(sb, "redis_git_dirty", 0);
        field(sb, "redis_build_id", "0");
        field(sb, "redis_mode", e.config().clusterEnabled.value() ? "cluster" : "standalone");
        field(sb, "os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + arch());
        field(sb, "arch_bits", System.getProperty("os.arch").contains("64") ? 64 : 32);
        field(sb, "monotonic_clock", "System.nanoTime");
        field(sb, "multiplexing_api", server.multiplexingApi());
        field(sb, "atomicvar_api", "java.util.concurrent");
        field(sb, "gcc_version", "0.0.0");
        field(sb, "java_version", System.getProperty("java.version"));
        field(sb, "process_id", ProcessHandle.current().pid());
        field(sb, "process_supervised", "no");
        field(sb, "run_id", runId);
        field(sb, "tcp_port", server.port());
        field(sb, "server_time_usec", nowMs * 1000);
        field(sb, "uptime_in_seconds", uptime);
        field(sb, "uptime_in_days", uptime / 86400);
        field(sb, "hz", c.hz.value());
        field(sb, "configured_hz", c.hz.value());
        field(sb, "lru_clock", (nowMs / 1000) & ((1 << 24) - 1));
        field(sb, "executable", ProcessHandle.current().info().command().orElse(""));
        field(sb, "config_file", c.configFile() == null ? "" : c.configFile().toString());
        field(sb, "io_threads_active", 0);
        long shutdownIn = server.shutdownWait().remainingMillis();
        if (shutdownIn >= 0) { // only while a shutdown waits for the replicas, as Redis
            field(sb, "shutdown_in_milliseconds", shutdownIn);
        }
    }

    private static String arch() {
        String a = System.getProperty("os.arch");
        return a.equals("amd64") ? "x86_64" : a;
    }

    private static void clients(StringBuilder sb, Engine e) {
        sb.append("# Clients\r\n");
        int replicas = 0; // Redis counts its replicas apart (connected_slaves), not as clients
        for (Session c : e.clients().all()) {
            if (e.hooks().isReplicaClient(c)) {
                replicas++;
            }
        }
        field(sb, "connected_clients", e.clients().size() - replicas);
        field(sb, "cluster_connections", 0);
        field(sb, "maxclients", e.config().maxclients.value());
        field(sb, "client_recent_max_input_buffer", 0);
        field(sb, "client_recent_max_output_buffer", 0);
        field(sb, "blocked_clients", e.blocking().blockedClients() + e.pause().postponedCount());
        field(sb, "tracking_clients", e.tracking().clients());
        field(sb, "clients_in_timeout_table", 0);
    }

    private void memory(StringBuilder sb, Engine e) {
        MemoryAccounting m = e.memory();
        long dataset = m.dataset();
        long overhead = m.overhead();
        long used = overhead + dataset;
        long startup = m.startup();
        long peak = peakMemory.accumulateAndGet(used, Math::max);
        long rss = rss();
        Runtime rt = Runtime.getRuntime();
        long totalSystem = totalSystemMemory();
        long maxmemory = e.config().maxmemory.value();
        long scripts = server.scripting().cache().memory();
        var functions = server.scripting().functions();
        long functionBytes = functions.codeBytes();
        // Redis 7.0.15's fields in its order, by Spinel's accounting (MemoryAccounting); the allocator is the JVM
        // (AllocatorFigures); cluster and defragmentation ones are 0.
        AllocatorFigures alloc = AllocatorFigures.now(rss);
        sb.append("# Memory\r\n");
        field(sb, "used_memory", used);
        field(sb, "used_memory_human", human(used));
        field(sb, "used_memory_rss", rss);
        field(sb, "used_memory_rss_human", human(rss));
        field(sb, "used_memory_peak", peak);
        field(sb, "used_memory_peak_human", human(peak));
        field(sb, "used_memory_peak_perc", String.format(Locale.ROOT, "%.2f%%", peak == 0 ? 100.0 : used * 100.0 / peak));
        field(sb, "used_memory_overhead", overhead);
        field(sb, "used_memory_startup", startup);
        field(sb, "used_memory_dataset", dataset);
        field(sb, "used_memory_dataset_perc", String.format(Locale.ROOT, "%.2f%%",
                used <= startup ? 0.0 : dataset * 100.0 / (used - startup)));
        field(sb, "allocator_allocated", alloc.allocated());
        field(sb, "allocator_active", alloc.active());
        field(sb, "allocator_resident", alloc.resident());
        field(sb, "total_system_memory", totalSystem);
        field(sb, "total_system_memory_human", human(totalSystem));
        field(sb, "jvm_heap_used", rt.totalMemory() - rt.freeMemory());
        field(sb, "jvm_heap_max", rt.maxMemory());
        field(sb, "used_memory_lua", scripts);
        field(sb, "used_memory_vm_eval", scripts);
        field(sb, "used_memory_lua_human", human(scripts));
        field(sb, "used_memory_scripts_eval", scripts);
        field(sb, "number_of_cached_scripts", server.scripting().cache().size());
        field(sb, "number_of_functions", functions.functionCount());
        field(sb, "number_of_libraries", functions.codes().size());
        field(sb, "used_memory_vm_functions", functionBytes);
        field(sb, "used_memory_vm_total", scripts + functionBytes);
        field(sb, "used_memory_vm_total_human", human(scripts + functionBytes));
        field(sb, "used_memory_functions", functionBytes);
        field(sb, "used_memory_scripts", scripts + functionBytes);
        field(sb, "used_memory_scripts_human", human(scripts + functionBytes));
        field(sb, "maxmemory", maxmemory);
        field(sb, "maxmemory_human", human(maxmemory));
        field(sb, "maxmemory_policy", e.config().maxmemoryPolicy.value());
        field(sb, "allocator_frag_ratio", AllocatorFigures.ratio(alloc.active(), alloc.allocated()));
        field(sb, "allocator_frag_bytes", alloc.active() - alloc.allocated());
        field(sb, "allocator_rss_ratio", AllocatorFigures.ratio(alloc.resident(), alloc.active()));
        field(sb, "allocator_rss_bytes", alloc.resident() - alloc.active());
        field(sb, "rss_overhead_ratio", AllocatorFigures.ratio(rss, alloc.resident()));
        field(sb, "rss_overhead_bytes", rss - alloc.resident());
        field(sb, "mem_fragmentation_ratio", AllocatorFigures.ratio(rss, used));
        field(sb, "mem_fragmentation_bytes", rss - used);
        field(sb, "mem_not_counted_for_evict", m.notCountedForEviction());
        long backlog = m.replicationBacklog();
        long replicaOutputs = m.replicaOutputs();
        field(sb, "mem_replication_backlog", backlog);
        field(sb, "mem_total_replication_buffers", backlog + replicaOutputs);
        field(sb, "mem_clients_slaves", replicaOutputs);
        field(sb, "mem_clients_normal", m.clients());
        field(sb, "mem_cluster_links", 0);
        field(sb, "mem_aof_buffer", 0);
        field(sb, "mem_allocator", "jvm");
        field(sb, "active_defrag_running", 0);
        field(sb, "lazyfree_pending_objects", 0);
        field(sb, "lazyfreed_objects", e.stats().lazyfreedObjects.sum());
    }

    private void stats(StringBuilder sb, Engine e) {
        ServerStats st = e.stats();
        long hits = st.keyspaceHits.sum();
        long misses = st.keyspaceMisses.sum();
        PubSub<?> pubSub = e.pubSub();
        // Redis 7.0.15's fields in its order; replication, defragmentation, io-threads and client eviction do
        // not exist here, so theirs stay 0.
        sb.append("# Stats\r\n");
        field(sb, "total_connections_received", st.connectionsReceived.sum());
        field(sb, "total_commands_processed", st.commandsProcessed.sum());
        field(sb, "instantaneous_ops_per_sec", st.instantaneous.opsPerSec());
        field(sb, "total_net_input_bytes", st.netInputBytes.sum());
        field(sb, "total_net_output_bytes", st.netOutputBytes.sum());
        field(sb, "total_net_repl_input_bytes", 0);
        field(sb, "total_net_repl_output_bytes", 0);
        field(sb, "instantaneous_input_kbps", String.format(Locale.ROOT, "%.2f", st.instantaneous.inputKbps()));
        field(sb, "instantaneous_output_kbps", String.format(Locale.ROOT, "%.2f", st.instantaneous.outputKbps()));
        field(sb, "instantaneous_input_repl_kbps", "0.00");
        field(sb, "instantaneous_output_repl_kbps", "0.00");
        field(sb, "rejected_connections", st.rejectedConnections.sum());
        field(sb, "sync_full", server.replication().syncFull());
        field(sb, "sync_partial_ok", server.replication().syncPartialOk());
        field(sb, "sync_partial_err", server.replication().syncPartialErr());
        field(sb, "expired_keys", e.keyspace().expiredKeys());
        field(sb, "expired_stale_perc", "0.00");
        field(sb, "expired_time_cap_reached_count", 0);
        field(sb, "expire_cycle_cpu_milliseconds", 0);
        field(sb, "evicted_keys", e.evictor().evictedKeys());
        field(sb, "evicted_clients", e.stats().evictedClients.sum());
        field(sb, "total_eviction_exceeded_time", 0);
        field(sb, "current_eviction_exceeded_time", 0);
        field(sb, "keyspace_hits", hits);
        field(sb, "keyspace_misses", misses);
        field(sb, "pubsub_channels", pubSub.channels(PubSub.Kind.CHANNEL, null).size());
        field(sb, "pubsub_patterns", pubSub.patternCount());
        field(sb, "pubsubshard_channels", pubSub.channels(PubSub.Kind.SHARD, null).size());
        field(sb, "latest_fork_usec", 0);
        field(sb, "total_forks", st.totalForks.sum());
        field(sb, "migrate_cached_sockets", server.migrateSockets().size());
        field(sb, "slave_expires_tracked_keys", e.replicaRole().keysWithExpire().size());
        field(sb, "active_defrag_hits", 0);
        field(sb, "active_defrag_misses", 0);
        field(sb, "active_defrag_key_hits", 0);
        field(sb, "active_defrag_key_misses", 0);
        field(sb, "total_active_defrag_time", 0);
        field(sb, "current_active_defrag_time", 0);
        field(sb, "tracking_total_keys", e.tracking().keys());
        field(sb, "tracking_total_items", e.tracking().items());
        field(sb, "tracking_total_prefixes", e.tracking().prefixes());
        field(sb, "unexpected_error_replies", st.unexpectedErrorReplies.sum());
        field(sb, "total_error_replies", st.totalErrorReplies.sum());
        field(sb, "dump_payload_sanitizations", 0);
        field(sb, "total_reads_processed", st.readsProcessed.sum());
        field(sb, "total_writes_processed", st.writesProcessed.sum());
        field(sb, "io_threaded_reads_processed", 0);
        field(sb, "io_threaded_writes_processed", 0);
        field(sb, "reply_buffer_shrinks", 0);
        field(sb, "reply_buffer_expands", 0);
    }

    private void replication(StringBuilder sb, Engine e) {
        sb.append("# Replication\r\n");
        server.replication().appendInfo(sb);
    }

    private static void cpu(StringBuilder sb) {
        double[] userSys = cpuTimes();
        sb.append("# CPU\r\n");
        field(sb, "used_cpu_sys", String.format(Locale.ROOT, "%.6f", userSys[1]));
        field(sb, "used_cpu_user", String.format(Locale.ROOT, "%.6f", userSys[0]));
        field(sb, "used_cpu_sys_children", "0.000000");
        field(sb, "used_cpu_user_children", "0.000000");
        // Redis's main thread is the one that runs commands; here, the event loop answering this INFO.
        var threads = ManagementFactory.getThreadMXBean();
        double user = threads.getCurrentThreadUserTime() / 1e9;
        field(sb, "used_cpu_sys_main_thread", String.format(Locale.ROOT, "%.6f", Math.max(0, threads.getCurrentThreadCpuTime() / 1e9 - user)));
        field(sb, "used_cpu_user_main_thread", String.format(Locale.ROOT, "%.6f", user));
    }

    private static void commandstats(StringBuilder sb, Engine e) {
        sb.append("# Commandstats\r\n");
        for (Command c : e.commands().allWithSubcommands()) {
            long calls = c.calls();
            if (calls == 0 && c.failedCalls() == 0 && c.rejectedCalls() == 0) {
                continue;
            }
            long usec = c.micros();
            sb.append("cmdstat_").append(c.name()).append(":calls=").append(calls).append(",usec=").append(usec)
                    .append(",usec_per_call=").append(String.format(Locale.ROOT, "%.2f", calls == 0 ? 0.0 : usec / (double) calls))
                    .append(",rejected_calls=").append(c.rejectedCalls()).append(",failed_calls=").append(c.failedCalls())
                    .append("\r\n");
        }
    }

    /** Redis's latencystats: for each command called, its latency at the configured percentiles, in µs. */
    private static void latencystats(StringBuilder sb, Engine e) {
        sb.append("# Latencystats\r\n");
        if (!e.config().latencyTracking.value()) {
            return;
        }
        String[] names = e.config().latencyTrackingInfoPercentiles.get().isEmpty() ? new String[0]
                : e.config().latencyTrackingInfoPercentiles.get().split(" ");
        for (Command c : e.commands().allWithSubcommands()) {
            LatencyHistogram.Snapshot h = c.latency().snapshot();
            if (h.total() == 0) {
                continue;
            }
            sb.append("latency_percentiles_usec_").append(c.name()).append(':');
            for (int j = 0; j < names.length; j++) {
                if (j > 0) {
                    sb.append(',');
                }
                sb.append('p').append(names[j]).append('=').append(String.format(Locale.ROOT, "%.3f",
                        h.valueAtPercentile(Double.parseDouble(names[j])) / 1000.0));
            }
            sb.append("\r\n");
        }
    }

    private static void errorstats(StringBuilder sb, Engine e) {
        sb.append("# Errorstats\r\n");
        for (Map.Entry<String, LongAdder> err : new TreeMap<>(e.stats().errors()).entrySet()) {
            sb.append("errorstat_").append(err.getKey()).append(":count=").append(err.getValue().sum()).append("\r\n");
        }
    }

    private static void keyspace(StringBuilder sb, Engine e) {
        sb.append("# Keyspace\r\n");
        long now = System.currentTimeMillis();
        for (int i = 0; i < e.keyspace().databases(); i++) {
            Database db = e.keyspace().db(i);
            long keys = db.size();
            if (keys == 0) {
                continue;
            }
            long expires = db.volatileCount();
            sb.append("db").append(i).append(":keys=").append(keys).append(",expires=").append(expires)
                    .append(",avg_ttl=").append(expires == 0 ? 0 : averageTtl(db, now)).append("\r\n");
        }
    }

    /** An estimate, as Redis's: the mean remaining TTL of the volatile keys met in a few buckets of every stripe. */
    private static long averageTtl(Database db, long now) {
        long[] sumCount = new long[2];
        for (int i = 0; i < Database.SEGMENTS; i++) {
            Segment seg = db.segmentAt(i);
            seg.lock();
            try {
                seg.scan(0, 16, (Entry en) -> {
                    long at = en.expireAt();
                    if (at > now) {
                        sumCount[0] += at - now;
                        sumCount[1]++;
                    }
                });
            } finally {
                seg.unlock();
            }
        }
        return sumCount[1] == 0 ? 0 : sumCount[0] / sumCount[1];
    }

    /** Redis's bytesToHuman. */
    static String human(long n) {
        if (n < 1024) {
            return n + "B";
        }
        String[] units = {"K", "M", "G", "T", "P"};
        double d = n / 1024.0;
        int u = 0;
        while (d >= 1024 && u < units.length - 1) {
            d /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.2f%s", d, units[u]);
    }

    static long rss() {
        try {
            String[] statm = Files.readString(Path.of("/proc/self/statm")).trim().split("\\s+");
            return Long.parseLong(statm[1]) * 4096;
        } catch (IOException | RuntimeException ex) {
            Runtime rt = Runtime.getRuntime();
            return rt.totalMemory();
        }
    }

    private static long totalSystemMemory() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        return 0;
    }

    /** User and system CPU seconds of the process: /proc/self/stat (utime, stime), else the JVM's total as user. */
    private static double[] cpuTimes() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // After "pid (comm) ": state is field 3, utime field 14, stime field 15.
            return new double[]{Long.parseLong(f[11]) / (double) CLOCK_TICKS, Long.parseLong(f[12]) / (double) CLOCK_TICKS};
        } catch (IOException | RuntimeException ex) {
            if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
                return new double[]{os.getProcessCpuTime() / 1e9, 0};
            }
            return new double[]{0, 0};
        }
    }

    private static String randomHex(int chars) {
        byte[] b = new byte[chars / 2];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
