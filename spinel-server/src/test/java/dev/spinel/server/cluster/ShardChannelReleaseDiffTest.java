package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import dev.spinel.store.KeySlot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static dev.spinel.server.cluster.ClusterFailoverTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Shard-channel subscribers get {@code sunsubscribe} when their node's shard stops serving the channel's slot, side by
 * side with three redis-server 7.0.15 nodes (Redis's legacy cluster test 25-pubsubshard-slot-migration): primaries A
 * and B, C A's replica. A slot migrated from A to B: A's subscriber (RESP2, two channels) loses that channel only and
 * still gets the other's messages; C's subscriber loses it too. DELSLOTS on A: A's RESP3 subscriber loses the slot's
 * channel. CLUSTER RESET HARD of B: B's subscriber loses its channel. Every reply and push is compared byte for byte.
 */
class ShardChannelReleaseDiffTest {
    private static final int[] REDIS = {22684, 22685, 22686};
    private static final int[] SPINEL = {22687, 22688, 22689};
    private static final String MOVED = "{b}moved";   // slot 3300: A's, migrated to B
    private static final String KEPT = "{c}kept";     // slot 7365: A's, deleted later
    private static final String ON_B = "{a}onb";      // slot 15495: B's

    private final List<RedisServerProcess> redis = new ArrayList<>();
    private final List<SpinelServer> spinel = new ArrayList<>();

    @AfterEach
    void stop() {
        ClusterNodes.closeAll(spinel.toArray(SpinelServer[]::new));
        redis.forEach(RedisServerProcess::close);
    }

    @Test
    @Timeout(300)
    void subscribersOfALostSlotGetSunsubscribeAsRedis() throws Exception {
        assertEquals(3300, slot(MOVED));
        assertEquals(7365, slot(KEPT));
        assertEquals(15495, slot(ON_B));
        for (int port : REDIS) {
            redis.add(RedisServerProcess.startOn(port, "--cluster-enabled", "yes", "--cluster-node-timeout", "2000"));
        }
        for (int port : SPINEL) {
            spinel.add(ClusterNodes.startNode("sunsub-" + port, port,
                    ServerConfig.defaults().with("cluster-node-timeout", "2000")));
        }
        List<String> r = transcript(REDIS);
        List<String> s = transcript(SPINEL);
        ClusterNodes.assertSameTranscripts("shard-channel-release", r, s);
    }

    private static List<String> transcript(int[] p) throws Exception {
        List<String> out = new ArrayList<>();
        ClusterNodes.formThreeNodes(p);
        String a = myId(p[0]);
        String b = myId(p[1]);
        out.add(ClusterNodes.call(p[2], "CLUSTER", "REPLICATE", a));
        await("C never became A's replica everywhere", 60_000, () -> {
            for (int port : p) {
                if (!ClusterNodes.call(port, "CLUSTER", "NODES").contains("slave " + a)) {
                    return false;
                }
            }
            return true;
        });
        try (RawClient subA = new RawClient(p[0]); RawClient subA3 = new RawClient(p[0]);
             RawClient subC = new RawClient(p[2]); RawClient subB = new RawClient(p[1])) {
            out.add(text(subA.call("SSUBSCRIBE", MOVED, KEPT))); // CROSSSLOT: one slot per call
            out.add(text(subA.call("SSUBSCRIBE", MOVED)));
            out.add(text(subA.call("SSUBSCRIBE", KEPT)));
            subA3.call("HELLO", "3");
            out.add(text(subA3.call("SSUBSCRIBE", KEPT)));
            out.add(text(subC.call("SSUBSCRIBE", MOVED)));
            out.add(text(subB.call("SSUBSCRIBE", ON_B)));

            out.add("-- migrate slot 3300 from A to B");
            out.add(ClusterNodes.call(p[0], "CLUSTER", "SETSLOT", "3300", "MIGRATING", b));
            out.add(ClusterNodes.call(p[1], "CLUSTER", "SETSLOT", "3300", "IMPORTING", a));
            out.add(ClusterNodes.call(p[0], "SPUBLISH", MOVED, "before"));
            out.add(text(subA.readReply()));
            out.add(text(subC.readReply()));
            out.add(ClusterNodes.call(p[0], "CLUSTER", "SETSLOT", "3300", "NODE", b));
            out.add(text(subA.readReply()));
            out.add(ClusterNodes.call(p[1], "CLUSTER", "SETSLOT", "3300", "NODE", b));
            out.add(text(subC.readReply()));
            out.add(ClusterNodes.call(p[0], "SPUBLISH", KEPT, "still"));
            out.add(text(subA.readReply()));
            out.add(text(subA3.readReply()));
            out.add(text(subA.call("PING")));

            out.add("-- DELSLOTS 7365 on A");
            out.add(ClusterNodes.call(p[0], "CLUSTER", "DELSLOTS", "7365"));
            out.add(text(subA.readReply()));
            out.add(text(subA3.readReply()));
            out.add(text(subA.call("PING"))); // out of subscribed mode: PONG as a plain reply

            out.add("-- CLUSTER RESET HARD of B");
            out.add(ClusterNodes.call(p[1], "CLUSTER", "RESET", "HARD"));
            out.add(text(subB.readReply()));
        }
        return out;
    }

    private static int slot(String key) {
        byte[] b = key.getBytes(StandardCharsets.UTF_8);
        return KeySlot.of(b, 0, b.length);
    }

    private static String myId(int port) throws Exception {
        String reply = ClusterNodes.call(port, "CLUSTER", "MYID");
        assertTrue(reply.startsWith("$40\r\n"), reply);
        return reply.split("\r\n")[1];
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.UTF_8).replace("\r\n", "\\r\\n");
    }
}
