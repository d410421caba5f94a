package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three Spinel nodes made one cluster by {@code redis-cli --cluster create} (ADDSLOTS, SET-CONFIG-EPOCH,
 * MEET to the first node: the topology then lives in one Raft group), then used by JedisCluster and
 * Lettuce's RedisClusterClient, which route by the slots the nodes announce and follow MOVED.
 */
class ThreeNodeClusterTest {
    private static final int[] PORTS = {22401, 22402, 22403};
    private static SpinelServer[] cluster;

    @BeforeAll
    static void startAndCreate() throws Exception {
        cluster = ClusterNodes.create("cluster", PORTS, i -> ServerConfig.defaults().with("cluster-port", Integer.toString(PORTS[i] + 10)));
    }

    @AfterAll
    static void stop() {
        ClusterNodes.closeAll(cluster);
    }

    @Test
    void everyNodeSeesTheSameTopology() throws Exception {
        Set<String> views = new HashSet<>();
        for (int port : PORTS) {
            try (RawClient c = new RawClient(port)) {
                String nodes = new String(c.call("CLUSTER", "NODES"), StandardCharsets.UTF_8);
                Set<String> lines = new HashSet<>();
                for (String line : nodes.split("\n")) {
                    String[] f = line.trim().split(" ");
                    if (f.length >= 8) {
                        StringBuilder b = new StringBuilder(f[0]).append(' ').append(f[1]);
                        for (int i = 8; i < f.length; i++) {
                            b.append(' ').append(f[i]);
                        }
                        lines.add(b.toString());
                    }
                }
                assertTrue(lines.size() >= 3, nodes);
                views.add(new TreeSet<>(lines).toString());
            }
        }
        assertEquals(1, views.size(), views.toString());
    }

    /**
     * CLUSTER NODES' ping-sent and pong-recv columns are this node's own questions to each other node and their
     * answers, as Redis's bus pings and pongs: myself 0 0; another node's pong-recv the Unix time in ms of its last
     * answer, recent (the liveness check runs every quarter of the node timeout, at most every second) and the same
     * in two CLUSTER NODES 20 ms apart (it showed the time of the request before); its ping-sent 0 or recent.
     */
    @Test
    void pingAndPongTimesAreThisNodesOwnChecks() throws Exception {
        ClusterFailoverTest.await("no stable recent pong-recv for every other node", 30_000, () -> {
            Map<String, Long> first = pongs(ClusterNodes.call(PORTS[0], "CLUSTER", "NODES"));
            Thread.sleep(20);
            Map<String, Long> second = pongs(ClusterNodes.call(PORTS[0], "CLUSTER", "NODES"));
            long now = System.currentTimeMillis();
            for (long pong : second.values()) {
                if (pong > now || now - pong > 5_000) {
                    return false;
                }
            }
            return second.size() >= 2 && first.equals(second);
        });
    }

    /** Other nodes' pong-recv by id; checks myself's 0 0 and that each ping-sent is 0 or recent. */
    private static Map<String, Long> pongs(String nodes) {
        Map<String, Long> out = new HashMap<>();
        long now = System.currentTimeMillis();
        for (String line : nodes.split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length < 8) {
                continue;
            }
            long ping = Long.parseLong(f[4]);
            long pong = Long.parseLong(f[5]);
            if (f[2].contains("myself")) {
                assertEquals(0, ping + pong, line);
            } else {
                assertTrue(ping == 0 || Math.abs(now - ping) < 60_000, line);
                out.put(f[0], pong);
            }
        }
        return out;
    }

    @Test
    void aNodeRedirectsToTheOwnerOfTheSlot() throws Exception {
        // "foo" is slot 12182, which redis-cli gives to the third node
        try (RawClient c = new RawClient(PORTS[0])) {
            assertEquals("-MOVED 12182 127.0.0.1:" + PORTS[2] + "\r\n", new String(c.call("GET", "foo"), StandardCharsets.UTF_8));
        }
        try (RawClient c = new RawClient(PORTS[2])) {
            assertEquals("+OK\r\n", new String(c.call("SET", "foo", "bar"), StandardCharsets.UTF_8));
        }
    }

    @Test
    void aFourthNodeJoinsAndReplicatesAPrimary() throws Exception {
        Path dir = Files.createTempDirectory("spinel-cluster-replica");
        try (SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "22404")
                .with("cluster-enabled", "yes").with("cluster-port", "22414").with("dir", dir.toString()));
             RawClient r = new RawClient(22404); RawClient primary = new RawClient(PORTS[0])) {
            String primaryId = new String(primary.call("CLUSTER", "MYID"), StandardCharsets.UTF_8).split("\r\n")[1];
            assertEquals("+OK\r\n", new String(r.call("CLUSTER", "MEET", "127.0.0.1", Integer.toString(PORTS[0]),
                    Integer.toString(PORTS[0] + 10)), StandardCharsets.UTF_8));
            long deadline = System.currentTimeMillis() + 20_000;
            while (!new String(r.call("CLUSTER", "INFO"), StandardCharsets.UTF_8).contains("cluster_known_nodes:4")) {
                assertTrue(System.currentTimeMillis() < deadline, "the fourth node was not taken in");
                Thread.sleep(50);
            }
            assertEquals("+OK\r\n", new String(r.call("CLUSTER", "REPLICATE", primaryId), StandardCharsets.UTF_8));
            String key; // one of the first node's slots (0-5460)
            for (int i = 0; ; i++) {
                long slot = Long.parseLong(new String(r.call("CLUSTER", "KEYSLOT", "k" + i), StandardCharsets.UTF_8).substring(1).trim());
                if (slot <= 5460) {
                    key = "k" + i;
                    break;
                }
            }
            assertEquals("+OK\r\n", new String(primary.call("SET", key, "replicated"), StandardCharsets.UTF_8));
            // without READONLY a replica redirects to its primary; with it, it serves its primary's slots
            String moved = new String(r.call("GET", key), StandardCharsets.UTF_8);
            assertTrue(moved.startsWith("-MOVED ") && moved.endsWith(" 127.0.0.1:" + PORTS[0] + "\r\n"), moved);
            assertEquals("+OK\r\n", new String(r.call("READONLY"), StandardCharsets.UTF_8));
            while (!new String(r.call("GET", key), StandardCharsets.UTF_8).equals("$10\r\nreplicated\r\n")) {
                assertTrue(System.currentTimeMillis() < deadline + 20_000, "the replica never received the write");
                Thread.sleep(50);
            }
            String role = new String(r.call("INFO", "replication"), StandardCharsets.UTF_8);
            assertTrue(role.contains("role:slave") && role.contains("master_port:" + PORTS[0]), role);
            // every node sees the replica under its primary
            try (RawClient other = new RawClient(PORTS[2])) {
                String nodes = new String(other.call("CLUSTER", "NODES"), StandardCharsets.UTF_8);
                assertTrue(nodes.contains(" slave " + primaryId + " "), nodes);
            }
            // a write sent to the replica is redirected to the primary, even with READONLY
            String write = new String(r.call("SET", key, "x"), StandardCharsets.UTF_8);
            assertTrue(write.startsWith("-MOVED "), write);
            // so is a script whose shebang declares no no-writes flag (a write to Redis's getNodeByQuery), where one
            // declared no-writes reads here (Redis's tests/cluster 16-transactions-on-replica)
            String script = new String(r.call("EVAL", "#!lua\nreturn redis.call('del', KEYS[1])", "1", key), StandardCharsets.UTF_8);
            assertTrue(script.startsWith("-MOVED "), script);
            assertEquals("$10\r\nreplicated\r\n", new String(r.call("EVAL", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])",
                    "1", key), StandardCharsets.UTF_8));
            // forgotten, it leaves the topology and the Raft group
            String replicaId = new String(r.call("CLUSTER", "MYID"), StandardCharsets.UTF_8).split("\r\n")[1];
            assertEquals("+OK\r\n", new String(primary.call("CLUSTER", "FORGET", replicaId), StandardCharsets.UTF_8));
            // the FORGET redis-cli --cluster del-node sends to each other node finds it gone: +OK, as on Redis, where
            // each node forgets on its own; a node never known is still refused with Redis's text
            try (RawClient other = new RawClient(PORTS[2])) {
                assertEquals("+OK\r\n", new String(other.call("CLUSTER", "FORGET", replicaId), StandardCharsets.UTF_8));
                String unknown = "0123456789abcdef0123456789abcdef01234567";
                assertEquals("-ERR Unknown node " + unknown + "\r\n",
                        new String(other.call("CLUSTER", "FORGET", unknown), StandardCharsets.UTF_8));
            }
        }
    }

    @Test
    void jedisClusterRoutesReadsAndWrites() throws Exception {
        try (JedisCluster jc = new JedisCluster(new HostAndPort("127.0.0.1", PORTS[0]))) {
            for (int i = 0; i < 300; i++) {
                jc.set("jedis:" + i, "v" + i);
            }
            for (int i = 0; i < 300; i++) {
                assertEquals("v" + i, jc.get("jedis:" + i));
            }
            jc.mset("{tag}a", "1", "{tag}b", "2");
            assertEquals(List.of("1", "2"), jc.mget("{tag}a", "{tag}b"));
        }
        long total = 0;
        for (int port : PORTS) {
            try (RawClient c = new RawClient(port)) {
                long n = Long.parseLong(new String(c.call("DBSIZE"), StandardCharsets.UTF_8).substring(1).trim());
                assertTrue(n > 50, "node " + port + " holds " + n + " keys: the keys were not spread");
                total += n;
            }
        }
        assertTrue(total >= 302, "total " + total);
    }

    @Test
    void lettuceClusterClientRoutesReadsAndWrites() {
        RedisClusterClient client = RedisClusterClient.create(RedisURI.create("127.0.0.1", PORTS[1]));
        try (StatefulRedisClusterConnection<String, String> conn = client.connect()) {
            RedisAdvancedClusterCommands<String, String> cmd = conn.sync();
            for (int i = 0; i < 300; i++) {
                cmd.set("lettuce:" + i, "v" + i);
            }
            for (int i = 0; i < 300; i++) {
                assertEquals("v" + i, cmd.get("lettuce:" + i));
            }
            assertEquals(3, cmd.clusterSlots().size());
        } finally {
            client.shutdown();
        }
    }
}
