package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.Await;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Cluster mode on one node, byte for byte against redis-server 7.0.15 started with
 * {@code cluster-enabled yes}: CLUSTER's answers and errors, slot assignment, the redirection errors
 * (-CLUSTERDOWN, -CROSSSLOT, -ASK, -TRYAGAIN) including MULTI/EXEC and EVAL keys, SELECT's refusal,
 * and the per-slot key index. Node ids and ports differ between the two servers and are replaced by
 * placeholders before the comparison.
 */
class ClusterModeDiffTest {
    private static final int REDIS_PORT = 22101;
    private static final int REDIS_BUS = 22111;
    private static final int SPINEL_PORT = 22102;
    private static final int SPINEL_BUS = 22112;
    private static RedisServerProcess redis;
    private static SpinelServer spinel;
    private static Path dir;

    @BeforeAll
    static void start() throws Exception {
        redis = RedisServerProcess.startOn(REDIS_PORT, "--cluster-enabled", "yes", "--cluster-port", Integer.toString(REDIS_BUS),
                "--enable-debug-command", "yes");
        dir = Files.createTempDirectory("spinel-cluster");
        spinel = SpinelServer.start(ServerConfig.defaults().with("port", Integer.toString(SPINEL_PORT))
                .with("cluster-enabled", "yes").with("cluster-port", Integer.toString(SPINEL_BUS))
                .with("enable-debug-command", "yes").with("dir", dir.toString()));
        // Redis keeps its first cluster state (fail, cluster_size 1) for 2 s after start; Spinel does not
        // (docs/cluster.md): compare after that, once Redis has computed its state (a slotless node: size 0).
        try (RawClient c = new RawClient(REDIS_PORT)) {
            Await.waitFor(() -> c.callString("CLUSTER", "INFO").contains("\r\ncluster_size:0\r\n"), "Redis's first cluster state to end");
        }
    }

    @AfterAll
    static void stop() {
        if (spinel != null) {
            spinel.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void oneNodeAnswersAsRedis() throws Exception {
        List<String> r = transcript(REDIS_PORT, REDIS_BUS);
        List<String> s = transcript(SPINEL_PORT, SPINEL_BUS);
        Files.write(dir.resolve("transcript-redis.txt"), r);
        Files.write(dir.resolve("transcript-spinel.txt"), s);
        for (int i = 0; i < Math.min(r.size(), s.size()); i++) {
            assertEquals(r.get(i), s.get(i), "step " + i);
        }
        assertEquals(r.size(), s.size());
    }

    @Test
    void nodesConfIsWrittenAsRedisKeepsIt() throws Exception {
        String conf = Files.readString(dir.resolve("nodes.conf"));
        String id;
        try (RawClient c = new RawClient(SPINEL_PORT)) {
            id = c.callString("CLUSTER", "MYID");
        }
        assertTrue(conf.startsWith(id.substring(id.indexOf('\n') + 1).trim() + " "), conf);
        assertTrue(conf.contains(" myself,master - 0 0 "), conf);
        assertTrue(conf.trim().endsWith("lastVoteEpoch 0"), conf);
    }

    private static List<String> transcript(int port, int bus) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient a = new RawClient(port); RawClient b = new RawClient(port)) {
            String id = new String(a.call("CLUSTER", "MYID"), StandardCharsets.UTF_8).split("\r\n")[1];
            out.add(Integer.toString(id.length()));
            Steps st = new Steps(a, out, id, port, bus);
            st.call("CLUSTER", "INFO");
            st.call("SET", "a", "1");
            st.call("GET", "a");
            st.call("PING");
            st.call("SELECT", "1");
            st.call("SELECT", "0");
            st.call("SELECT", "x");
            st.call("SWAPDB", "0", "1");
            st.call("MOVE", "a", "1");
            st.call("COPY", "a", "b", "DB", "1");
            for (String k : new String[]{"foo", "{user}a", "{user}b", "{}x", "a{b}c{d}", "{", "}{", "abc{", "", "{a", "x{}y{z}"}) {
                st.call("CLUSTER", "KEYSLOT", k);
            }
            st.call("CLUSTER", "ADDSLOTS", "0", "1", "2");
            st.call("CLUSTER", "ADDSLOTS", "2");
            st.call("CLUSTER", "ADDSLOTS", "5", "5");
            st.call("CLUSTER", "ADDSLOTS", "16384");
            st.call("CLUSTER", "ADDSLOTS", "7", "x");
            st.call("CLUSTER", "ADDSLOTS", "7", "0");
            st.call("CLUSTER", "ADDSLOTSRANGE", "10", "20");
            st.call("CLUSTER", "ADDSLOTSRANGE", "30", "25");
            st.call("CLUSTER", "ADDSLOTSRANGE", "30");
            st.call("CLUSTER", "ADDSLOTSRANGE", "30", "31", "40");
            st.call("CLUSTER", "ADDSLOTSRANGE", "40", "41", "41", "42");
            st.call("CLUSTER", "DELSLOTS", "100");
            st.call("CLUSTER", "DELSLOTS", "1", "1");
            st.call("CLUSTER", "DELSLOTSRANGE", "10", "12");
            st.call("CLUSTER", "NODES");
            st.call("CLUSTER", "SLOTS");
            st.call("CLUSTER", "SHARDS");
            st.call("CLUSTER", "INFO");
            st.call("CLUSTER", "COUNTKEYSINSLOT", "x");
            st.call("CLUSTER", "COUNTKEYSINSLOT", "-1");
            st.call("CLUSTER", "COUNTKEYSINSLOT", "16384");
            st.call("CLUSTER", "GETKEYSINSLOT", "0", "-1");
            st.call("CLUSTER", "GETKEYSINSLOT", "16384", "1");
            st.call("CLUSTER", "GETKEYSINSLOT", "0", "x");
            st.call("CLUSTER", "SETSLOT", "5", "MIGRATING", id);
            st.call("CLUSTER", "SETSLOT", "0", "MIGRATING", "deadbeef");
            st.call("CLUSTER", "SETSLOT", "0", "FOO");
            st.call("CLUSTER", "SETSLOT", "0", "STABLE", "extra");
            st.call("CLUSTER", "SETSLOT", "0", "NODE", "nobody");
            st.call("CLUSTER", "SETSLOT", "0", "IMPORTING", id);
            st.call("CLUSTER", "SETSLOT", "x", "STABLE");
            st.call("CLUSTER", "REPLICATE", id);
            st.call("CLUSTER", "REPLICATE", "nobody");
            st.call("CLUSTER", "FORGET", id);
            st.call("CLUSTER", "FORGET", "nobody");
            st.call("CLUSTER", "COUNT-FAILURE-REPORTS", "nobody");
            st.call("CLUSTER", "COUNT-FAILURE-REPORTS", id);
            st.call("CLUSTER", "REPLICAS", id);
            st.call("CLUSTER", "REPLICAS", "nobody");
            st.call("CLUSTER", "MEET", "127.0.0.1", "notaport");
            st.call("CLUSTER", "MEET", "127.0.0.1", "1", "x");
            st.call("CLUSTER", "MEET", "not.an.ip", "1");
            st.call("CLUSTER", "MEET", "127.0.0.1", "70000");
            st.call("CLUSTER", "MEET", "127.0.0.1", "1", "2", "x");
            st.call("CLUSTER", "MEET", "127.0.0.1", "1", "2", "x", "y");
            st.call("CLUSTER", "SET-CONFIG-EPOCH", "-1");
            st.call("CLUSTER", "SET-CONFIG-EPOCH", "x");
            st.call("CLUSTER", "SET-CONFIG-EPOCH", "5");
            st.call("CLUSTER", "SET-CONFIG-EPOCH", "6");
            st.call("CLUSTER", "INFO");
            st.call("CLUSTER", "RESET", "MAYBE");
            st.call("CLUSTER", "RESET", "HARD", "NOW");
            st.call("CLUSTER", "FAILOVER");
            st.call("CLUSTER", "FAILOVER", "FORCE");
            st.call("CLUSTER", "FAILOVER", "SOON");
            st.call("CLUSTER", "FAILOVER", "FORCE", "NOW");
            st.call("READONLY");
            st.call("READWRITE");
            st.call("ASKING");
            st.call("CLUSTER", "FLUSHSLOTS");
            st.call("CLUSTER", "INFO");
            // every slot: the cluster comes up (Redis waits a little after its start before saying ok)
            st.call("CLUSTER", "ADDSLOTSRANGE", "0", "16383");
            awaitOk(a);
            st.call("CLUSTER", "INFO");
            // announced ports (the same on both servers, so no placeholder), then back to the real ones
            st.call("CONFIG", "SET", "cluster-announce-port", "1234");
            st.call("CONFIG", "SET", "cluster-announce-tls-port", "1235");
            st.call("CONFIG", "SET", "cluster-announce-bus-port", "4321");
            for (String p : new String[]{"cluster-announce-port", "cluster-announce-tls-port", "cluster-announce-bus-port"}) {
                st.call("CONFIG", "GET", p);
            }
            st.call("CLUSTER", "NODES");
            st.call("CLUSTER", "SLOTS");
            st.call("CLUSTER", "SHARDS");
            st.call("CONFIG", "SET", "cluster-announce-port", "0");
            st.call("CLUSTER", "NODES");
            st.call("CONFIG", "SET", "cluster-announce-bus-port", "0");
            st.call("CONFIG", "SET", "cluster-announce-tls-port", "0");
            st.call("CLUSTER", "NODES");
            // what the init of Redis's legacy cluster suite sets on every node (tests/cluster/tests/includes/init-tests.tcl)
            st.call("CONFIG", "SET", "cluster-slave-validity-factor", "10");
            st.call("CONFIG", "SET", "cluster-replica-validity-factor", "-1");
            st.call("CONFIG", "SET", "cluster-replica-validity-factor", "2");
            st.call("CONFIG", "GET", "cluster-slave-validity-factor");
            st.call("CONFIG", "SET", "cluster-replica-validity-factor", "10");
            st.call("CONFIG", "SET", "cluster-announce-hostname", "");
            st.call("CONFIG", "GET", "cluster-announce-hostname");
            st.call("CONFIG", "SET", "cluster-announce-hostname", "?.com");
            st.call("CONFIG", "SET", "cluster-announce-hostname", "x".repeat(256));
            // scripts and functions flagged no-cluster (00-base of the legacy suite)
            st.call("EVAL", "#!lua flags=no-cluster\nreturn 1", "0");
            st.call("EVAL", "#!lua flags=no-writes\nreturn 1", "0");
            st.call("FUNCTION", "LOAD", "REPLACE", "#!lua name=nc\nredis.register_function{function_name='nc1', "
                    + "callback=function() return 'hello' end, flags={'no-cluster'}}");
            st.call("FCALL", "nc1", "0");
            st.call("FUNCTION", "DELETE", "nc");
            st.call("DEBUG", "DROP-CLUSTER-PACKET-FILTER", "-1");
            st.call("DEBUG", "DROP-CLUSTER-PACKET-FILTER", "x");
            st.call("SET", "foo", "1");
            st.call("GET", "foo");
            st.call("MSET", "{t}a", "1", "{t}b", "2");
            st.call("MSET", "a", "1", "b", "2");
            st.call("MGET", "{t}a", "{t}b", "{t}c");
            st.call("MGET", "{t}a", "foo");
            st.call("DEL", "{t}a", "{t}a");
            st.call("EVAL", "return redis.call('get', KEYS[1])", "2", "{t}b", "foo");
            st.call("EVAL", "return redis.call('get', KEYS[1])", "2", "{t}b", "{t}z");
            st.call("EVAL", "return 1", "0");
            // keys a script touches (Redis's scriptVerifyClusterState): one slot unless the script allows more
            st.call("EVAL", "#!lua\nredis.call('set','foo','bar')\nredis.call('set','bar','foo')\nreturn 'OK'", "0");
            st.call("EVAL", "redis.call('set','foo','bar'); redis.call('set','bar','foo')", "0");
            st.call("EVAL", "#!lua flags=allow-cross-slot-keys\nredis.call('set','foo','bar'); redis.call('set','bar','foo')", "0");
            st.call("EVAL", "#!lua\nredis.call('set','foo','bar')\nreturn 'OK'", "1", "bar");
            st.call("EVAL", "#!lua\nreturn redis.pcall('get','foo')", "1", "bar");
            st.call("EVAL", "#!lua\nredis.call('get','{t}q')\nreturn redis.call('get','{t}b')", "0");
            st.call("EVAL", "return redis.call('mset','a','1','b','2')", "0");
            st.call("FUNCTION", "LOAD", "#!lua name=crossslot\nredis.register_function('cross', function(keys, args)"
                    + " redis.call('set', 'foo', 'bar') redis.call('set', 'bar', 'foo') return 'OK' end)\n"
                    + "redis.register_function{function_name='crossok', callback=function(keys, args)"
                    + " redis.call('set', 'foo', 'bar') redis.call('set', 'bar', 'foo') return 'OK' end,"
                    + " flags={'allow-cross-slot-keys'}}");
            st.call("FCALL", "cross", "0");
            st.call("FCALL", "crossok", "0");
            st.call("FUNCTION", "FLUSH");
            st.call("MULTI");
            st.call("SET", "{t}x", "1");
            st.call("SET", "foo", "2");
            st.call("EXEC");
            st.call("MULTI");
            st.call("SET", "{t}x", "1");
            st.call("MSET", "a", "1", "b", "2");
            st.call("EXEC");
            st.call("SPUBLISH", "ch", "m");
            st.call("OBJECT", "ENCODING", "foo");
            st.call("SORT", "{t}b", "STORE", "foo");
            // the slot index follows writes, deletes, expiry and flushes
            String slotT = Long.toString(12);
            st.call("CLUSTER", "KEYSLOT", "{t}");
            for (int i = 0; i < 20; i++) {
                st.call("SET", "{t}k" + i, "v");
            }
            st.call("CLUSTER", "COUNTKEYSINSLOT", "15971");
            st.call("DEL", "{t}k3", "{t}k4");
            st.call("RENAME", "{t}k5", "{t}renamed");
            st.call("PEXPIRE", "{t}k6", "1");
            Thread.sleep(20);
            st.call("GET", "{t}k6");
            st.call("CLUSTER", "COUNTKEYSINSLOT", "15971");
            st.sorted("CLUSTER", "GETKEYSINSLOT", "15971", "100");
            st.call("CLUSTER", "GETKEYSINSLOT", "15971", "0");
            st.call("FLUSHALL");
            st.call("CLUSTER", "COUNTKEYSINSLOT", "15971");
            // ASK and TRYAGAIN while the slot migrates (to this node itself, the only one known)
            st.call("SET", "{m}1", "x");
            st.call("CLUSTER", "KEYSLOT", "{m}");
            String m = new String(a.call("CLUSTER", "KEYSLOT", "{m}"), StandardCharsets.UTF_8).substring(1).trim();
            st.call("CLUSTER", "SETSLOT", m, "MIGRATING", id);
            st.call("CLUSTER", "NODES");
            st.call("GET", "{m}1");
            st.call("GET", "{m}2");
            st.call("MGET", "{m}1", "{m}2");
            st.call("MGET", "{m}2", "{m}3");
            st.call("CLUSTER", "SETSLOT", m, "STABLE");
            st.call("GET", "{m}2");
            st.call("CLUSTER", "SETSLOT", m, "NODE", id);
            st.call("CLUSTER", "DELSLOTS", m);
            st.call("GET", "{m}1");
            st.call("EVAL", "return redis.call('get','{m}1')", "0");
            st.call("EVAL", "return redis.call('get','foo')", "0");
            st.call("CONFIG", "SET", "cluster-require-full-coverage", "no");
            st.call("EVAL", "return redis.call('get','{m}1')", "0");
            st.call("EVAL", "return redis.call('get','foo')", "0");
            st.call("CONFIG", "SET", "cluster-require-full-coverage", "yes");
            st.call("CLUSTER", "RESET");
            st.call("FLUSHALL");
            st.call("CLUSTER", "RESET");
            st.call("CLUSTER", "INFO");
            st.call("CLUSTER", "NODES");
            String hello = new String(a.call("HELLO", "3"), StandardCharsets.UTF_8);
            out.add("HELLO mode: " + hello.substring(hello.indexOf("mode")));
            st.call("INFO", "cluster");
            st.call("CLUSTER", "INFO");
            st.call("CLUSTER", "SHARDS");
            st.call("CLUSTER", "SLOTS");
            st.call("INFO", "errorstats");
            // HARD: a new id, the epochs (5 since SET-CONFIG-EPOCH) back to 0
            st.call("CLUSTER", "RESET", "HARD");
            String newId = new String(a.call("CLUSTER", "MYID"), StandardCharsets.UTF_8);
            out.add("new id: " + !newId.contains(id));
            st.call("CLUSTER", "INFO");
        }
        return out;
    }

    private static void awaitOk(RawClient c) throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < deadline) {
            if (new String(c.call("CLUSTER", "INFO"), StandardCharsets.UTF_8).contains("cluster_state:ok")) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("cluster_state never became ok");
    }

    /** Calls with placeholders for what differs between the two servers (node id, ports). */
    private record Steps(RawClient c, List<String> out, String id, int port, int bus) {
        void call(String... args) throws Exception {
            out.add(String.join(" ", args).replace(id, "<ID>") + " -> " + normalize(c.call(args)));
        }

        void sorted(String... args) throws Exception {
            String[] parts = normalize(c.call(args)).split("\r\n");
            List<String> items = new ArrayList<>(List.of(parts).subList(1, parts.length));
            List<String> pairs = new ArrayList<>();
            for (int i = 0; i + 1 < items.size(); i += 2) {
                pairs.add(items.get(i) + " " + items.get(i + 1));
            }
            pairs.sort(null);
            out.add(String.join(" ", args) + " -> " + parts[0] + " " + pairs);
        }

        private String normalize(byte[] reply) {
            String s = new String(reply, StandardCharsets.UTF_8).replace(id, "<ID>")
                    .replace(":" + port + "@" + bus, ":<PORT>@<BUS>").replace(":" + port + "@", ":<PORT>@")
                    .replace("@" + bus + " ", "@<BUS> ").replace(":" + port + "\r\n", ":<PORT>\r\n")
                    .replace(":" + port + " ", ":<PORT> ");
            // the port as an integer reply in SLOTS/SHARDS
            s = s.replace(":" + port + "\r\n", ":<PORT>\r\n");
            // a bulk's length header follows its text's length; recompute after the replacements
            return s.replaceAll("\\$\\d+\r\n<ID>", "\\$40\r\n<ID>");
        }
    }
}
