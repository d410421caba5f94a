package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import redis.clients.jedis.ClusterPipeline;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisShardedPubSub;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue #20's acceptance 2 with the Java clients: JedisCluster and Lettuce's RedisClusterClient against 3 Spinel
 * primaries + 3 replicas made by {@code redis-cli --cluster create --cluster-replicas 1}: pipelines, hash-tag MSET,
 * MULTI in one slot, sharded pub/sub, the replicas holding what the primaries hold, and Lettuce's periodic and
 * adaptive topology refresh following a CLUSTER FAILOVER. (1M keys and redis-py: {@code tools/cluster-clients.sh}.)
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterClientsTest {
    private static final int[] PORTS = {22801, 22802, 22803, 22804, 22805, 22806};
    private static final int KEYS = 20_000;
    private static SpinelServer[] cluster;

    @BeforeAll
    static void startAndCreate() throws Exception {
        cluster = ClusterNodes.create("clients", PORTS, 1,
                i -> ServerConfig.defaults().with("cluster-port", Integer.toString(PORTS[i] + 20)));
        for (int port : PORTS) {
            if (ClusterNodes.call(port, "ROLE").contains("slave")) {
                awaitLinkUp(port);
            }
        }
    }

    @AfterAll
    static void stop() {
        ClusterNodes.closeAll(cluster);
    }

    @Test
    @Order(1)
    void jedisClusterPipelinesMsetMultiAndShardedPubSub() throws Exception {
        try (JedisCluster jc = new JedisCluster(new HostAndPort("127.0.0.1", PORTS[0]))) {
            ClusterPipeline p = jc.pipelined();
            for (int i = 0; i < KEYS; i++) {
                p.set("jedis:" + i, "v" + i);
            }
            p.sync();
            List<Response<String>> got = new ArrayList<>();
            for (int i = 0; i < KEYS; i++) {
                got.add(p.get("jedis:" + i));
            }
            p.close();
            for (int i = 0; i < KEYS; i++) {
                assertEquals("v" + i, got.get(i).get(), "jedis:" + i);
            }

            jc.mset("{user:7}name", "ann", "{user:7}mail", "ann@example.org", "{user:7}age", "41");
            assertEquals(List.of("ann", "ann@example.org", "41"), jc.mget("{user:7}name", "{user:7}mail", "{user:7}age"));

            // MULTI in one slot: on a connection to the node serving it
            int slot = JedisClusterCRC16.getSlot("{acct}from");
            try (Connection c = jc.getConnectionFromSlot(slot); Jedis j = new Jedis(c)) {
                Transaction t = j.multi();
                t.incrBy("{acct}from", -5);
                t.incrBy("{acct}to", 5);
                assertEquals(List.of(-5L, 5L), t.exec());
            }
            assertEquals("5", jc.get("{acct}to"));

            // sharded pub/sub: SSUBSCRIBE and SPUBLISH both go to the channel's shard
            BlockingQueue<String> received = new LinkedBlockingQueue<>();
            CountDownLatch subscribed = new CountDownLatch(1);
            JedisShardedPubSub sub = new JedisShardedPubSub() {
                @Override
                public void onSMessage(String channel, String message) {
                    received.add(channel + "=" + message);
                }

                @Override
                public void onSSubscribe(String channel, int count) {
                    subscribed.countDown();
                }
            };
            Thread listener = Thread.ofVirtual().start(() -> jc.ssubscribe(sub, "{news}sport"));
            assertTrue(subscribed.await(10, TimeUnit.SECONDS), "SSUBSCRIBE never confirmed");
            assertEquals(1, jc.spublish("{news}sport", "goal"));
            assertEquals("{news}sport=goal", received.poll(10, TimeUnit.SECONDS));
            sub.sunsubscribe();
            listener.join(10_000);
        }
        // every replica holds what its primary holds
        Map<Integer, Integer> primaryOf = primaryPorts();
        assertEquals(3, primaryOf.size(), primaryOf.toString());
        long total = 0;
        for (Map.Entry<Integer, Integer> e : primaryOf.entrySet()) {
            String primarySize = ClusterNodes.call(e.getValue(), "DBSIZE");
            total += Long.parseLong(primarySize.substring(1).trim());
            long deadline = System.currentTimeMillis() + 20_000;
            while (!ClusterNodes.call(e.getKey(), "DBSIZE").equals(primarySize)) {
                assertTrue(System.currentTimeMillis() < deadline, "replica " + e.getKey() + " never caught up with " + e.getValue());
                Thread.sleep(50);
            }
        }
        assertEquals(KEYS + 5, total);
    }

    @Test
    @Order(2)
    void lettucePipelinesMultiShardedPubSubAndRefreshThroughAFailover() throws Exception {
        RedisClusterClient adaptive = RedisClusterClient.create(RedisURI.create("127.0.0.1", PORTS[1]));
        adaptive.setOptions(ClusterClientOptions.builder().topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                .enableAllAdaptiveRefreshTriggers().adaptiveRefreshTriggersTimeout(Duration.ofMillis(100)).build()).build());
        RedisClusterClient periodic = RedisClusterClient.create(RedisURI.create("127.0.0.1", PORTS[2]));
        periodic.setOptions(ClusterClientOptions.builder().topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                .enablePeriodicRefresh(Duration.ofMillis(500)).build()).build());
        try (StatefulRedisClusterConnection<String, String> a = adaptive.connect();
             StatefulRedisClusterConnection<String, String> b = periodic.connect();
             StatefulRedisClusterPubSubConnection<String, String> ps = adaptive.connectPubSub()) {
            // a pipeline: commands queued, flushed at once, then awaited
            RedisAdvancedClusterAsyncCommands<String, String> async = a.async();
            a.setAutoFlushCommands(false);
            List<RedisFuture<String>> sets = new ArrayList<>();
            for (int i = 0; i < 5000; i++) {
                sets.add(async.set("lettuce:" + i, "v" + i));
            }
            a.flushCommands();
            assertTrue(LettuceFutures.awaitAll(Duration.ofSeconds(30), sets.toArray(RedisFuture[]::new)));
            a.setAutoFlushCommands(true);
            for (int i = 0; i < 5000; i += 499) {
                assertEquals("v" + i, b.sync().get("lettuce:" + i));
            }
            assertEquals("OK", a.sync().mset(Map.of("{order:9}item", "book", "{order:9}qty", "2")));

            // MULTI in one slot, on the connection to the node serving it
            int slot = SlotHash.getSlot("{cart}total");
            RedisClusterNode owner = a.getPartitions().getPartitionBySlot(slot);
            RedisCommands<String, String> node = a.getConnection(owner.getNodeId()).sync();
            assertEquals("OK", node.multi());
            node.incrby("{cart}total", 30);
            node.lpush("{cart}items", "pen");
            TransactionResult tx = node.exec();
            assertEquals(List.of(30L, 1L), tx.stream().toList());

            // sharded pub/sub through the cluster pub/sub connection
            BlockingQueue<String> received = new LinkedBlockingQueue<>();
            ps.addListener(new RedisClusterPubSubAdapter<>() {
                @Override
                public void smessage(RedisClusterNode from, String channel, String message) {
                    received.add(channel + "=" + message);
                }
            });
            ps.sync().ssubscribe("{alerts}disk");
            assertEquals(1L, a.sync().spublish("{alerts}disk", "full"));
            assertEquals("{alerts}disk=full", received.poll(10, TimeUnit.SECONDS));

            // CLUSTER FAILOVER on the replica of the primary serving "{f}key": both clients must end up writing there
            int fSlot = SlotHash.getSlot("{f}key");
            int oldPrimary = a.getPartitions().getPartitionBySlot(fSlot).getUri().getPort();
            int replica = primaryPorts().entrySet().stream().filter(e -> e.getValue() == oldPrimary)
                    .mapToInt(Map.Entry::getKey).findFirst().orElseThrow();
            assertEquals("OK", a.sync().set("{f}key", "before"));
            try (RawClient r = new RawClient(replica)) {
                assertEquals("+OK\r\n", r.callString("CLUSTER", "FAILOVER"));
            }
            long deadline = System.currentTimeMillis() + 30_000;
            while (!ClusterNodes.call(replica, "ROLE").contains("master")) {
                assertTrue(System.currentTimeMillis() < deadline, "the replica " + replica + " never took over");
                Thread.sleep(50);
            }
            // adaptive: the old primary's MOVED is followed and makes Lettuce reload the topology
            assertEquals("OK", a.sync().set("{f}key", "after"));
            awaitOwner(adaptive, fSlot, replica);
            // periodic: no command needed, the next refresh finds the new primary
            awaitOwner(periodic, fSlot, replica);
            assertEquals("after", b.sync().get("{f}key"));
            assertEquals("OK", b.sync().set("{f}key", "periodic"));
            assertEquals("periodic", ClusterNodes.call(replica, "GET", "{f}key").split("\r\n")[1]);
        } finally {
            adaptive.shutdown();
            periodic.shutdown();
        }
    }

    private static void awaitOwner(RedisClusterClient client, int slot, int port) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 20_000;
        while (client.getPartitions().getPartitionBySlot(slot).getUri().getPort() != port) {
            assertTrue(System.currentTimeMillis() < deadline, "the client never saw " + port + " serve slot " + slot
                    + ": " + client.getPartitions());
            Thread.sleep(50);
        }
    }

    /** Each replica's port mapped to its primary's, from CLUSTER NODES. */
    private static Map<Integer, Integer> primaryPorts() throws Exception {
        Map<String, Integer> portOf = new HashMap<>();
        Map<Integer, String> primaryIdOf = new HashMap<>();
        for (String line : ClusterNodes.call(PORTS[0], "CLUSTER", "NODES").split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length < 8) {
                continue;
            }
            int port = Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1, f[1].indexOf('@')));
            portOf.put(f[0], port);
            if (f[2].contains("slave")) {
                primaryIdOf.put(port, f[3]);
            }
        }
        Map<Integer, Integer> out = new HashMap<>();
        primaryIdOf.forEach((replica, id) -> out.put(replica, portOf.get(id)));
        return out;
    }

    private static void awaitLinkUp(int port) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (!ClusterNodes.call(port, "INFO", "replication").contains("master_link_status:up")) {
            assertTrue(System.currentTimeMillis() < deadline, "replica " + port + " never synced");
            Thread.sleep(50);
        }
    }
}
