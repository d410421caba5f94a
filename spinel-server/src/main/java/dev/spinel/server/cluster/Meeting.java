package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.ClusterTopology;
import dev.spinel.cluster.GroupOrder;
import dev.spinel.cluster.Topology;
import dev.spinel.cluster.TopologyChange;
import dev.spinel.cluster.TopologyException;
import dev.spinel.server.log.Log;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * CLUSTER MEET's work: makes this node's Raft group and the met node's one. In Redis a MEET is transitive through
 * gossip: whatever order N nodes meet in, each ends knowing all N. Here two groups merge into one, always the same
 * way whichever side meets the other ({@link GroupOrder}: the larger, else the one with the smallest node id, takes
 * every node of the other in, one at a time, primaries first), so two nodes meeting each other at once, or a
 * chain of MEETs sent without waiting (Redis's legacy cluster suite), cannot each wait for the other. A node whose
 * group comes second asks the other to do it (a CLUSTER MEET back with {@link #JOIN}) and waits until it is in,
 * asking again every {@link #ASK_AGAIN_MS}; until then a lone node's own changes wait too (ADDSLOTS right after
 * MEET belongs in the group it is about to join). A node moved into another group meets, in turn, the members of
 * the group it left that the new one lacks ({@link #follow}): a node brought into that group after the merge had
 * read its members would otherwise stay behind in a group the others have left, without a majority. A node that
 * has no address yet learns it here from the connection, as Redis's node learns its IP from the peer it meets.
 *
 * <p>Thread-safety: every meeting runs on the one meeting thread given; {@link #meet} and {@link #follow} may be
 * called from any thread.
 */
final class Meeting {
    /** The extra argument of the MEET a node sends to the node it met, asking it to bring this node's group in. */
    static final String JOIN = "SPINEL-JOIN";
    /** The extra argument of a MEET that only asks for the id of the node's Raft group (a bulk reply). */
    static final String GROUP = "SPINEL-GROUP";
    private static final int TIMEOUT_MS = 5000;
    /** How long a MEET tries before the two nodes are in one group. */
    private static final int JOIN_WAIT_MS = 180_000;
    /**
     * The other node's join may fail (a Raft commit timing out on a loaded machine, after which its AddNode may
     * still be applied): as Redis's handshake is retried until it succeeds, the request is repeated (joining is
     * idempotent on the other side, which keeps one request per node queued).
     */
    static final int ASK_AGAIN_MS = 5000;
    /** How often a meeting reads the other node's CLUSTER NODES again while the groups are not one yet. */
    private static final int POLL_MS = 100;
    /** A moved node leaves the node that moved it time to bring the rest of its former group along first. */
    private static final int FOLLOW_DELAY_MS = 5000;

    private final Supplier<ClusterTopology> topology;
    private final ExecutorService thread;
    /** Join requests (host:port) queued on the meeting thread and not started yet. */
    private final Set<String> queuedJoins = ConcurrentHashMap.newKeySet();
    /** The nodes that left this node's topology lately: a node met, brought in and gone again is not asked back. */
    private final RemovedNodes removed;

    Meeting(Supplier<ClusterTopology> topology, ExecutorService thread, RemovedNodes removed) {
        this.topology = topology;
        this.thread = thread;
        this.removed = removed;
    }

    /**
     * Meets the node at host:port in the background (Redis's handshake is asynchronous too); failures are logged.
     *
     * @param joinRequest the other node asked this one to bring its group in (its MEET carried {@link #JOIN})
     */
    void meet(String host, int port, int bus, boolean joinRequest) {
        String key = host + ":" + port;
        if (joinRequest && !queuedJoins.add(key)) {
            return; // a node asking again while its request still waits: one is enough
        }
        thread.execute(() -> {
            queuedJoins.remove(key); // started: a later ask may queue again (a plain MEET never queued it)
            try {
                run(topology.get(), topology, removed, host, port, bus, joinRequest);
            } catch (IOException | TopologyException | RuntimeException e) {
                Log.warning("CLUSTER MEET " + key + " failed: " + e.getMessage());
            }
        });
    }

    /** This node was moved out of the group whose last topology is {@code left}: its other members follow. */
    void follow(Topology left) {
        Log.notice("Moved into another cluster's Raft group; " + (left.nodes().size() - 1) + " other node(s) of the former one follow");
        ClusterTopology t = topology.get();
        CompletableFuture.runAsync(() -> {
            for (ClusterNode n : left.nodes()) {
                if (topology.get() != t) {
                    return; // CLUSTER RESET meanwhile: that group is no concern of the node any more
                }
                if (t.current().node(n.id()) != null) {
                    continue;
                }
                try {
                    run(t, topology, removed, n.host(), n.port(), n.busPort(), false);
                } catch (IOException | TopologyException | RuntimeException e) {
                    Log.warning("Could not bring node " + n.id() + " of this node's former group along: " + e.getMessage());
                }
            }
        }, CompletableFuture.delayedExecutor(FOLLOW_DELAY_MS, TimeUnit.MILLISECONDS, thread));
    }

    /**
     * One meeting, until this node and the other are in one group (a join request: one step, the asking node
     * checks the outcome itself), or until {@code live} is no longer {@code t} (a CLUSTER RESET started a new one).
     */
    private static void run(ClusterTopology t, Supplier<ClusterTopology> live, RemovedNodes removed, String host, int port,
                            int bus, boolean joinRequest) throws IOException, TopologyException {
        long startedMs = RemovedNodes.clockMs();
        long deadline = System.currentTimeMillis() + JOIN_WAIT_MS;
        long askAt = 0;
        long rejoinAt = System.currentTimeMillis() + ASK_AGAIN_MS;
        ClusterNode self = t.current().node(t.myId()); // kept: a failed join can drop this node from its topology
        boolean wasIn = false; // the node at host:port was seen in this group, or brought in by this meeting
        try (PeerCall peer = new PeerCall(host, port, TIMEOUT_MS)) {
            while (true) {
                if (live.get() != t) {
                    return; // CLUSTER RESET meanwhile: this node left the cluster the meeting was for
                }
                Group other = Group.read(peer, host, bus);
                Topology mine = t.current();
                String myGroup = t.groupId();
                boolean listed = mine.node(t.myId()) != null;
                self = listed ? mine.node(t.myId()) : self;
                boolean sameGroup = other.group().equals(myGroup);
                boolean otherListed = mine.node(other.id()) != null;
                wasIn |= sameGroup && otherListed;
                if (wasIn && !sameGroup && !otherListed) {
                    return; // it was in, then left (CLUSTER RESET) before this loop saw the meeting done: Redis's MEET is over
                }
                if (listed && sameGroup && other.sameNodes(mine) && t.voting()) {
                    // One group (not merely knowing each other: a node still lists the members of a group it left;
                    // nor a node being brought in, which applies the group's changes before it votes, and whose
                    // join may still fail and be undone)
                    return;
                }
                long now = System.currentTimeMillis();
                if (listed && (sameGroup || GroupOrder.of(mine, myGroup).compareTo(other.order()) <= 0)) {
                    t.joining(false);
                    try {
                        if (sameGroup) {
                            // It is in this group's Raft group, not in its topology: its join failed after its server
                            // had the group (a configuration change timing out under load), and was undone. Again.
                            bringInItself(t, other);
                        } else {
                            bringIn(t, other, peer.localAddress());
                        }
                        // Brought in (a failed join throws, and is undone): the handshake is done, and the node leaving
                        // now (a CLUSTER RESET as soon as both list it) ends this meeting instead of being brought back.
                        wasIn |= !otherListed;
                        if (otherListed && !sameGroup && now >= rejoinAt) {
                            // Listed here but in another group: it went to a group that brought it in at the same time,
                            // and dropped this one (or its join failed half-way): joined again (idempotent).
                            rejoinAt = now + ASK_AGAIN_MS;
                            Log.notice("Node " + other.id() + " is listed but in another Raft group: joining it again");
                            t.join(other.member(other.id()).node(), other.member(other.id()).slots());
                        }
                    } catch (TopologyException e) {
                        if (joinRequest || now > deadline) {
                            throw e;
                        }
                        Log.warning("CLUSTER MEET " + host + ":" + port + ": " + e.getMessage() + " (trying again)");
                        sleep(ASK_AGAIN_MS / 5);
                    }
                } else if (joinRequest) {
                    return; // the asking node's group comes first: its own meeting brings this node in
                } else {
                    if (removed.removedSince(other.id(), startedMs)) {
                        // It brought this node in and left since (a CLUSTER RESET): not an undone join, which drops the
                        // node brought in, not the one bringing it. Redis's MEET is over; asking again would undo the reset.
                        return;
                    }
                    t.joining(mine.nodes().size() == 1);
                    if (now >= askAt && self != null) {
                        String reply = peer.call("CLUSTER", "MEET", peer.localAddress(), Integer.toString(self.port()),
                                Integer.toString(self.busPort()), JOIN);
                        if (!reply.startsWith("+")) {
                            throw new IOException("asking " + host + ":" + port + " to bring this node in: " + reply);
                        }
                        askAt = now + ASK_AGAIN_MS;
                    }
                }
                if (joinRequest) {
                    return;
                }
                if (now > deadline) {
                    throw new IOException(host + ":" + port + " and this node did not become one cluster in time");
                }
                if (!sleep(POLL_MS)) {
                    return;
                }
            }
        } finally {
            t.joining(false);
        }
    }

    /** Brings the other node (of this node's Raft group, missing from its topology) in again. */
    private static void bringInItself(ClusterTopology t, Group other) throws TopologyException {
        Member m = other.member(other.id());
        if (m != null && t.current().node(other.id()) == null) {
            Log.notice("Node " + other.id() + " is in this Raft group but not in the cluster (its join failed): joining it again");
            t.join(m.node(), m.slots());
        }
    }

    /** Brings the other node's group into this one: each node this one lacks, primaries first (a replica names its primary). */
    private static void bringIn(ClusterTopology t, Group other, String localAddress) throws TopologyException {
        ClusterNode me = t.current().node(t.myId());
        if (me != null && me.host().isEmpty()) {
            t.commit(new TopologyChange.SetAddress(me.id(), localAddress, me.port(), me.busPort()));
        }
        List<Member> members = new ArrayList<>(other.members());
        members.sort(Comparator.comparing(m -> m.node().isPrimary() ? 0 : 1));
        for (Member m : members) {
            if (t.current().node(m.node().id()) == null) {
                Log.verbose("Bringing node " + m.node().id() + " (" + m.node().host() + ":" + m.node().port() + ") into this cluster");
                t.join(m.node(), m.slots());
            }
        }
    }

    private static boolean sleep(long ms) {
        try {
            Thread.sleep(ms);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** A node of the other group as its CLUSTER NODES line describes it, with the slots it serves. */
    private record Member(ClusterNode node, int[] slots) {
    }

    /** The other node's group as its CLUSTER NODES shows it; {@code id} is that node's own, {@code group} its Raft group's. */
    private record Group(String id, String group, List<Member> members) {
        GroupOrder order() {
            String min = "";
            for (Member m : members) {
                if (min.isEmpty() || m.node().id().compareTo(min) < 0) {
                    min = m.node().id();
                }
            }
            return new GroupOrder(members.size(), min, group);
        }

        boolean sameNodes(Topology t) {
            if (t.nodes().size() != members.size()) {
                return false;
            }
            for (Member m : members) {
                if (t.node(m.node().id()) == null) {
                    return false;
                }
            }
            return true;
        }

        Member member(String nodeId) {
            for (Member m : members) {
                if (m.node().id().equals(nodeId)) {
                    return m;
                }
            }
            return null;
        }

        /**
         * Reads the CLUSTER NODES of the node met at host (whose own line may show no address yet: it is the one
         * this node reached it at; {@code bus}, MEET's guess, serves only when the line shows none).
         */
        static Group read(PeerCall peer, String host, int bus) throws IOException {
            String myself = null;
            List<Member> members = new ArrayList<>();
            for (String line : peer.bulk("CLUSTER", "NODES").split("\n")) {
                String[] f = line.trim().split(" ");
                if (f.length < 8) {
                    continue;
                }
                boolean self = f[2].contains("myself");
                String addr = f[1];
                int at = addr.lastIndexOf('@');
                int colon = addr.lastIndexOf(':', at < 0 ? addr.length() : at);
                int comma = at < 0 ? -1 : addr.indexOf(',', at);
                String ip = self || colon <= 0 ? host : addr.substring(0, colon);
                int port = Integer.parseInt(addr.substring(colon + 1, at < 0 ? addr.length() : at));
                int nodeBus = at < 0 ? bus : Integer.parseInt(addr.substring(at + 1, comma < 0 ? addr.length() : comma));
                ClusterNode n = new ClusterNode(f[0], ip, port, nodeBus, f[3].equals("-") ? null : f[3], Long.parseLong(f[6]));
                members.add(new Member(n, slots(f)));
                if (self) {
                    myself = f[0];
                }
            }
            if (myself == null) {
                throw new IOException("no myself line in the CLUSTER NODES of " + host);
            }
            return new Group(myself, peer.bulk("CLUSTER", "MEET", peer.localAddress(), "0", "0", GROUP), members);
        }

        private static int[] slots(String[] f) {
            List<Integer> slots = new ArrayList<>();
            for (int i = 8; i < f.length; i++) {
                if (f[i].startsWith("[")) {
                    continue;
                }
                int dash = f[i].indexOf('-');
                int a = Integer.parseInt(dash < 0 ? f[i] : f[i].substring(0, dash));
                int z = dash < 0 ? a : Integer.parseInt(f[i].substring(dash + 1));
                for (int x = a; x <= z; x++) {
                    slots.add(x);
                }
            }
            return slots.stream().mapToInt(Integer::intValue).toArray();
        }
    }
}
