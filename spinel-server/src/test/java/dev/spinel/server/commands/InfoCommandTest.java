package dev.spinel.server.commands;

import dev.spinel.protocol.Version;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** INFO: the sections and fields clients parse are there, named as Redis names them, with parseable values. */
class InfoCommandTest {
    private static SpinelServer server;

    @BeforeAll
    static void start() {
        server = SpinelServer.startEphemeral();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** Reads a bulk-string INFO reply into section headers and fields. */
    private static String info(RawClient c, String... sections) throws Exception {
        List<String> args = new ArrayList<>(List.of("INFO"));
        args.addAll(List.of(sections));
        byte[] reply = c.call(args.toArray(new String[0]));
        String r = new String(reply, StandardCharsets.UTF_8);
        assertTrue(r.startsWith("$"), r);
        int nl = r.indexOf("\r\n");
        int len = Integer.parseInt(r.substring(1, nl));
        String body = r.substring(nl + 2, r.length() - 2);
        assertEquals(len, body.getBytes(StandardCharsets.UTF_8).length);
        return body;
    }

    private static Map<String, String> fields(String body) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : body.split("\r\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            assertTrue(colon > 0, "not a field: " + line);
            out.put(line.substring(0, colon), line.substring(colon + 1));
        }
        return out;
    }

    private static List<String> headers(String body) {
        List<String> out = new ArrayList<>();
        for (String line : body.split("\r\n")) {
            if (line.startsWith("# ")) {
                out.add(line.substring(2));
            }
        }
        return out;
    }

    @Test
    void defaultSectionsInRedisOrder() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.call("SET", "info-key", "v");
            String body = info(c);
            assertEquals(List.of("Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules",
                    "Errorstats", "Cluster", "Keyspace"), headers(body));
            assertEquals(headers(body), headers(info(c, "default")));
            assertEquals(List.of("Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules",
                    "Commandstats", "Errorstats", "Latencystats", "Cluster", "Keyspace"), headers(info(c, "everything")));
            assertEquals(headers(info(c, "all")), headers(info(c, "everything")));
            assertEquals(List.of("Clients", "Keyspace"), headers(info(c, "keyspace", "CLIENTS", "clients")));
            assertEquals("", info(c, "nosuchsection"));
            c.call("DEL", "info-key");
        }
    }

    @Test
    void fieldsClientsReadAreThereAndParse() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.call("SET", "info-k2", "v");
            c.call("GET", "info-k2");
            c.call("GET", "info-missing");
            c.call("NOSUCHCOMMAND");
            Map<String, String> f = fields(info(c, "everything"));
            assertEquals("7.0.15", f.get("redis_version"));
            assertEquals(Version.SPINEL, f.get("spinel_version"));
            assertEquals("standalone", f.get("redis_mode"));
            assertEquals("64", f.get("arch_bits"));
            assertEquals(Long.toString(ProcessHandle.current().pid()), f.get("process_id"));
            assertEquals(Integer.toString(server.port()), f.get("tcp_port"));
            assertEquals("master", f.get("role"));
            assertEquals("0", f.get("connected_slaves"));
            assertEquals(40, f.get("master_replid").length());
            assertEquals(40, f.get("run_id").length());
            assertEquals("0", f.get("loading"));
            assertEquals("0", f.get("aof_enabled"));
            assertEquals("noeviction", f.get("maxmemory_policy"));
            assertEquals("0", f.get("cluster_enabled"));
            for (String numeric : List.of("uptime_in_seconds", "uptime_in_days", "hz", "configured_hz", "lru_clock",
                    "connected_clients", "blocked_clients", "maxclients", "used_memory", "used_memory_rss",
                    "used_memory_peak", "maxmemory", "total_system_memory", "total_connections_received",
                    "total_commands_processed", "instantaneous_ops_per_sec", "total_net_input_bytes",
                    "total_net_output_bytes", "rejected_connections", "expired_keys", "evicted_keys", "keyspace_hits",
                    "keyspace_misses", "total_error_replies", "rdb_changes_since_last_save", "rdb_last_save_time",
                    "master_repl_offset", "server_time_usec")) {
                assertNotNull(f.get(numeric), numeric);
                Long.parseLong(f.get(numeric));
            }
            for (String decimal : List.of("used_cpu_sys", "used_cpu_user", "used_cpu_sys_children",
                    "used_cpu_user_children", "instantaneous_input_kbps", "instantaneous_output_kbps",
                    "mem_fragmentation_ratio")) {
                Double.parseDouble(f.get(decimal));
            }
            assertTrue(Long.parseLong(f.get("connected_clients")) >= 1);
            assertTrue(Long.parseLong(f.get("keyspace_hits")) >= 1);
            assertTrue(Long.parseLong(f.get("keyspace_misses")) >= 1);
            assertTrue(Double.parseDouble(f.get("used_cpu_user")) > 0);
            assertTrue(f.get("used_memory_human").matches("[0-9.]+[BKMGTP]"), f.get("used_memory_human"));
            assertTrue(f.get("errorstat_ERR").matches("count=\\d+"), f.get("errorstat_ERR"));
            assertTrue(f.get("cmdstat_get").matches("calls=\\d+,usec=\\d+,usec_per_call=\\d+\\.\\d\\d,rejected_calls=\\d+,failed_calls=\\d+"),
                    f.get("cmdstat_get"));
            assertTrue(f.get("db0").matches("keys=\\d+,expires=\\d+,avg_ttl=\\d+"), f.get("db0"));
            c.call("DEL", "info-k2");
        }
    }

    /**
     * The allocator fields describe the JVM's memory as Redis's describe jemalloc's, and the ratios are Redis's
     * (active / allocated, resident / active, RSS / resident, RSS / used_memory): allocated counts at least the
     * non-heap pools (classes, code) this JVM had before the call, which used_memory never holds.
     */
    @Test
    void allocatorFieldsAreTheJvmsAndTheirRatiosAreRedis() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            long nonHeap = ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage().getUsed();
            Map<String, String> f = fields(info(c, "memory"));
            long used = Long.parseLong(f.get("used_memory"));
            long rss = Long.parseLong(f.get("used_memory_rss"));
            long allocated = Long.parseLong(f.get("allocator_allocated"));
            long active = Long.parseLong(f.get("allocator_active"));
            long resident = Long.parseLong(f.get("allocator_resident"));
            assertTrue(allocated >= nonHeap, "allocated " + allocated + " < non-heap " + nonHeap);
            assertTrue(active >= allocated && resident <= active && resident <= rss, f.toString());
            assertEquals(active - allocated, Long.parseLong(f.get("allocator_frag_bytes")));
            assertEquals(resident - active, Long.parseLong(f.get("allocator_rss_bytes")));
            assertEquals(rss - resident, Long.parseLong(f.get("rss_overhead_bytes")));
            assertEquals(rss - used, Long.parseLong(f.get("mem_fragmentation_bytes")));
            assertEquals(String.format(Locale.ROOT, "%.2f", active / (double) allocated), f.get("allocator_frag_ratio"));
            assertEquals(String.format(Locale.ROOT, "%.2f", resident / (double) active), f.get("allocator_rss_ratio"));
            assertEquals(String.format(Locale.ROOT, "%.2f", rss / (double) resident), f.get("rss_overhead_ratio"));
            assertEquals(String.format(Locale.ROOT, "%.2f", rss / (double) used), f.get("mem_fragmentation_ratio"));
        }
    }

    @Test
    void resetstatClearsCountersAndCommandStats() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.call("SET", "soon", "v", "PX", "1");
            Thread.sleep(5);
            c.call("GET", "soon");
            assertTrue(Long.parseLong(fields(info(c, "stats")).get("expired_keys")) >= 1);
            c.call("GET", "x");
            c.call("NOSUCHCOMMAND");
            assertEquals("+OK\r\n", c.callString("CONFIG", "RESETSTAT"));
            Map<String, String> f = fields(info(c, "stats", "commandstats", "errorstats"));
            assertEquals("0", f.get("keyspace_misses"));
            assertEquals("0", f.get("expired_keys"));
            assertEquals("0", f.get("total_error_replies"));
            assertFalse(f.containsKey("cmdstat_get"));
            assertFalse(f.containsKey("errorstat_ERR"));
            // CONFIG RESETSTAT itself is counted after the reset, as in Redis.
            assertTrue(f.containsKey("cmdstat_config|resetstat"), f.toString());
        }
    }

    @Test
    void keyspaceAverageTtlIsAnEstimateOfRemainingTime() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.call("SELECT", "5");
            c.call("SET", "ttl-a", "v", "EX", "1000");
            c.call("SET", "ttl-b", "v", "EX", "1000");
            c.call("SET", "ttl-c", "v");
            Map<String, String> f = fields(info(c, "keyspace"));
            String[] parts = f.get("db5").split(",");
            assertEquals("keys=3", parts[0]);
            assertEquals("expires=2", parts[1]);
            long avg = Long.parseLong(parts[2].substring("avg_ttl=".length()));
            assertTrue(avg > 990_000 && avg <= 1_000_000, parts[2]);
            c.call("DEL", "ttl-a", "ttl-b", "ttl-c");
        }
    }
}
