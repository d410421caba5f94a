package dev.spinel.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three Raft topologies on loopback: joined into one group, every node applies the same changes in the
 * same order, a change refused by the state machine is refused everywhere, and a restarted node recovers
 * the topology from its log.
 */
class RaftTopologyTest {
    private static final String A = "a".repeat(40);
    private static final String B = "b".repeat(40);
    private static final String C = "c".repeat(40);

    @TempDir
    Path dir;

    private static ClusterNode node(String id, int bus) {
        return new ClusterNode(id, "127.0.0.1", bus - 100, bus, null, 0);
    }

    private RaftTopology start(String id, int bus, String sub) throws Exception {
        ClusterNode n = node(id, bus);
        return RaftTopology.start(n, "127.0.0.1", dir.resolve(sub), Topology.of(n), 300);
    }

    @Test
    void joinedNodesApplyOneOrder() throws Exception {
        try (RaftTopology a = start(A, 28301, "a"); RaftTopology b = start(B, 28302, "b"); RaftTopology c = start(C, 28303, "c")) {
            b.commit(new TopologyChange.AddSlots(B, new int[]{100, 101}));
            a.commit(new TopologyChange.AddSlots(A, new int[]{0, 1, 2}));
            a.join(node(B, 28302), new int[]{100, 101});
            a.join(node(C, 28303), new int[0]);
            await(() -> b.current().nodes().size() == 3 && c.current().nodes().size() == 3);
            assertEquals(B, a.current().owner(100));
            assertEquals(A, c.current().owner(2));
            // a change made on a follower reaches all, and a conflicting one is refused everywhere
            c.commit(new TopologyChange.AddSlots(C, new int[]{200}));
            TopologyException busy = assertThrows(TopologyException.class,
                    () -> b.commit(new TopologyChange.AddSlots(B, new int[]{200})));
            assertEquals("ERR Slot 200 is already busy", busy.getMessage());
            await(() -> a.current().equals(c.current()) && b.current().equals(c.current()));
            assertEquals(C, a.current().owner(200));
            peerAppliedSeesAHeldBackApply(a, b, c);
            b.commit(new TopologyChange.DelSlots(B, new int[]{100, 101}));
            b.commit(new TopologyChange.Replicate(B, A));
            TopologyException replica = assertThrows(TopologyException.class,
                    () -> c.commit(new TopologyChange.Replicate(C, B)));
            assertEquals("ERR I can only replicate a master, not a replica.", replica.getMessage());
        }
        // restarted from their logs, the nodes find the same topology again
        try (RaftTopology a = start(A, 28301, "a"); RaftTopology b = start(B, 28302, "b"); RaftTopology c = start(C, 28303, "c")) {
            await(() -> a.current().nodes().size() == 3 && a.current().equals(b.current()) && b.current().equals(c.current()));
            assertEquals(A, c.current().node(B).primaryId());
            assertNull(c.current().owner(5));
            a.commit(new TopologyChange.AddSlots(A, new int[]{5}));
            await(() -> A.equals(c.current().owner(5)));
        }
    }

    /**
     * A change one follower has not applied yet (its apply held back by a listener here) is reported so by
     * {@link RaftTopology#awaitApplied(String, long, long)} on another member, and applied once it is.
     */
    private static void peerAppliedSeesAHeldBackApply(RaftTopology... all) throws Exception {
        RaftTopology held = null;
        for (RaftTopology t : all) {
            if (t.peerSilenceMs().isEmpty()) {
                held = t; // a follower: the leader's own apply answers the commit, it must not be held
            }
        }
        assertNotNull(held, "no follower");
        RaftTopology other = held == all[0] ? all[1] : all[0];
        CountDownLatch release = new CountDownLatch(1);
        held.listen(t -> {
            if (t.owner(300) != null) {
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        other.commit(new TopologyChange.AddSlots(other.myId(), new int[]{300}));
        long index = other.currentIndex();
        try {
            assertFalse(other.awaitApplied(held.myId(), index, 300));
        } finally {
            release.countDown();
        }
        assertTrue(other.awaitApplied(held.myId(), index, 10_000));
        assertEquals(other.myId(), held.current().owner(300));
        assertTrue(held.awaitApplied(other.myId(), index, 10_000));
    }

    @Test
    void setSlotAlreadyInEffectNeedsNoLogEntry() throws Exception {
        // one Raft server: B is a record in its topology only (no Raft join needed to test the log)
        try (RaftTopology a = start(A, 28304, "a")) {
            a.commit(new TopologyChange.AddSlots(A, new int[]{7, 8}));
            a.commit(new TopologyChange.AddNode(node(B, 28305), new int[0]));
            long before = a.changesApplied();
            // what redis-cli sends to a third primary after a reshard step: already so, no Raft entry
            a.commit(new TopologyChange.SetSlot(A, 7, "node", A));
            a.commit(new TopologyChange.SetSlot(B, 7, "stable", null));
            assertEquals(before, a.changesApplied());
            // one that changes something is committed, and one that is refused is still refused
            a.commit(new TopologyChange.SetSlot(B, 7, "importing", A));
            assertEquals(before + 1, a.changesApplied());
            assertEquals(A, a.current().importing(7).peerId());
            TopologyException unknown = assertThrows(TopologyException.class,
                    () -> a.commit(new TopologyChange.SetSlot(A, 8, "node", C)));
            assertEquals("ERR Unknown node " + C, unknown.getMessage());
            a.commit(new TopologyChange.SetSlot(B, 7, "node", B));
            assertEquals(B, a.current().owner(7));
            assertNull(a.current().importing(7));
        }
    }

    private static void await(BooleanSupplier cond) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 15_000;
        while (!cond.getAsBoolean()) {
            assertTrue(System.currentTimeMillis() < deadline, "condition not reached in time");
            Thread.sleep(20);
        }
    }
}
