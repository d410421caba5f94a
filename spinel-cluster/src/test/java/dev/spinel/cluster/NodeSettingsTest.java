package dev.spinel.cluster;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a node announces of itself (its hostname, its nofailover flag) through the topology: the change that sets it,
 * its log and snapshot text, CLUSTER NODES' rendering as Redis 7.0.15's ({@code ip:port@cport,hostname}, the flags
 * in Redis's order: {@code myself,slave,fail,nofailover}) and nodes.conf read back.
 */
class NodeSettingsTest {
    private static final String P = "a".repeat(40);
    private static final String R = "b".repeat(40);

    private static Topology twoNodes() {
        Topology t = Topology.of(new ClusterNode(P, "127.0.0.1", 7000, 17000, null, 1));
        return Topology.withNode(t, new ClusterNode(R, "127.0.0.1", 7001, 17001, P, 1));
    }

    private static Topology apply(Topology t, TopologyChange c) throws TopologyException {
        Topology.Builder b = t.toBuilder();
        TopologyChange.decode(c.encode()).apply(b); // through its log text, as every node applies it
        return b.build();
    }

    @Test
    void settingsAreCommittedAndShownAsRedisShowsThem() throws Exception {
        Topology t = apply(twoNodes(), new TopologyChange.NodeSettings(R, "host-1.com", true));
        assertEquals("host-1.com", t.node(R).hostname());
        assertTrue(t.node(R).noFailover());
        assertEquals(t, Topology.decode(t.encode()));
        assertEquals(t.node(R), Topology.decode(t.encode()).node(R));
        String nodes = NodesFile.describe(t, R, 5);
        assertTrue(nodes.contains(R + " 127.0.0.1:7001@17001,host-1.com myself,slave,nofailover " + P + " 0 0 1 connected\n"), nodes);
        assertTrue(nodes.contains(P + " 127.0.0.1:7000@17000 master - 0 5 1 connected\n"), nodes);
        Topology.Builder failed = t.toBuilder();
        new TopologyChange.Health(R, true).apply(failed);
        assertTrue(NodesFile.describe(failed.build(), P, 5).contains(" slave,fail,nofailover " + P + " "),
                NodesFile.describe(failed.build(), P, 5));
        assertTrue(NodesFile.describe(t, P, suspectingAll()).contains(" slave,fail?,nofailover " + P + " "));

        Topology cleared = apply(t, new TopologyChange.NodeSettings(R, "", false));
        assertEquals(twoNodes(), cleared);
        assertFalse(NodesFile.describe(cleared, P, 5).contains("nofailover"));
        assertTrue(new TopologyChange.NodeSettings(R, "", false).inEffect(cleared));
        assertFalse(new TopologyChange.NodeSettings(R, "", true).inEffect(cleared));
    }

    @Test
    void nodesConfKeepsThem() throws Exception {
        Topology t = apply(twoNodes(), new TopologyChange.NodeSettings(R, "replica.example", true));
        t = apply(t, new TopologyChange.NodeSettings(P, "primary.example", false));
        Path file = Files.createTempDirectory("nodes-settings").resolve("nodes.conf");
        NodesFile.write(file, t, R);
        NodesFile.Loaded back = NodesFile.read(file);
        assertEquals(R, back.myId());
        assertEquals(t.node(R), back.topology().node(R));
        assertEquals(t.node(P), back.topology().node(P));
        // Redis 7.2's aux fields after the hostname are not part of it
        Files.writeString(file, Files.readString(file).replace(",replica.example ", ",replica.example,shard-id=abc "));
        assertEquals(t.node(R), NodesFile.read(file).topology().node(R));
    }

    private static PeerView suspectingAll() {
        return new PeerView() {
            @Override
            public boolean suspected(String id) {
                return true;
            }

            @Override
            public long pingSent(String id) {
                return 0;
            }

            @Override
            public long pongReceived(String id) {
                return 5;
            }
        };
    }
}
