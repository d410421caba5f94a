package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.ClusterTopology;
import dev.spinel.cluster.TopologyChange;
import dev.spinel.cluster.TopologyException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * CLUSTER MEET's work: asks the other node, over its client port, for CLUSTER NODES, takes its "myself"
 * line (id, bus port, epoch, slots) and joins it to this node's topology. A node that has no address yet
 * learns it here from the connection, as Redis's node learns its IP from the peer it meets.
 *
 * <p>Stateless; runs on ClusterMode's meeting thread.
 */
final class Meeting {
    private static final int TIMEOUT_MS = 5000;
    /** How long a lone node waits to be brought in, asking again every {@link #ASK_AGAIN_MS}. */
    private static final int JOIN_WAIT_MS = 180_000;
    /**
     * The other node's join may fail (a Raft commit timing out on a loaded machine, after which its AddNode may
     * still be applied): as Redis's handshake is retried until it succeeds, the request is repeated (joining is
     * idempotent on the other side, which keeps one request per node queued). Joins are done one at a time, so
     * on a loaded machine the last of six nodes redis-cli meets at once waited more than a minute.
     */
    static final int ASK_AGAIN_MS = 5000;

    private Meeting() {
    }

    /** The extra argument of the MEET a lone node sends to the node it met, asking to be brought in. */
    static final String JOIN = "SPINEL-JOIN";

    /**
     * Meets the node at host:port. Who brings whom into its Raft group: a node that is alone asks the other
     * to bring it in (CLUSTER MEET back, with {@link #JOIN}: so that nodes met by several lone nodes at
     * once, as redis-cli --cluster create does, take them in one at a time on their own meeting thread);
     * a node with peers brings a lone node in; two nodes that both have peers are not merged.
     *
     * @param joinRequest the other node asked to be brought in (its MEET carried {@link #JOIN})
     */
    static void meet(ClusterTopology topology, int myPort, String host, int port, int bus, boolean joinRequest)
            throws IOException, TopologyException {
        try (PeerCall peer = new PeerCall(host, port, TIMEOUT_MS)) {
            String localAddress = peer.localAddress();
            String[] other = null;
            int otherNodes = 0;
            boolean knowsMe = false;
            for (String line : peer.bulk("CLUSTER", "NODES").split("\n")) {
                String[] f = line.trim().split(" ");
                if (f.length < 8) {
                    continue;
                }
                otherNodes++;
                knowsMe |= f[0].equals(topology.myId());
                if (f[2].contains("myself")) {
                    other = f;
                }
            }
            if (other == null) {
                throw new IOException("no myself line in the CLUSTER NODES of " + host + ":" + port);
            }
            boolean alone = topology.current().nodes().size() == 1;
            if (knowsMe && !alone) {
                return; // already in one cluster (a lone node it knows was not brought in: ask again, below)
            }
            if (joinRequest || (!alone && otherNodes == 1)) {
                if (otherNodes != 1) {
                    throw new IOException(host + ":" + port + " is already in a cluster of " + otherNodes + " nodes");
                }
                ClusterNode me = topology.current().node(topology.myId());
                if (me != null && me.host().isEmpty()) {
                    topology.commit(new TopologyChange.SetAddress(me.id(), localAddress, me.port(), me.busPort()));
                }
                // The bus port the node announces (Redis learns it from the handshake; MEET's is a guess).
                int at = other[1].lastIndexOf('@');
                int comma = other[1].indexOf(',', at);
                int otherBus = at < 0 ? bus : Integer.parseInt(other[1].substring(at + 1, comma < 0 ? other[1].length() : comma));
                topology.join(new ClusterNode(other[0], host, port, otherBus, null, Long.parseLong(other[6])), slots(other));
                return;
            }
            if (!alone) {
                throw new IOException("this node and " + host + ":" + port + " are both in clusters of several nodes: "
                        + "merging two clusters is not supported");
            }
            ClusterNode me = topology.current().node(topology.myId());
            topology.joining(true);
            try {
                // Wait to be brought in, so that this node is in one group before it meets another.
                String otherId = other[0];
                long deadline = System.currentTimeMillis() + JOIN_WAIT_MS;
                long askAt = 0;
                while (topology.current().node(otherId) == null) {
                    long now = System.currentTimeMillis();
                    if (now > deadline) {
                        throw new IOException(host + ":" + port + " did not bring this node in");
                    }
                    if (now >= askAt) {
                        String reply = peer.call("CLUSTER", "MEET", localAddress, Integer.toString(myPort),
                                Integer.toString(me.busPort()), JOIN);
                        if (!reply.startsWith("+")) {
                            throw new IOException("asking " + host + ":" + port + " to bring this node in: " + reply);
                        }
                        askAt = now + ASK_AGAIN_MS;
                    }
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            } finally {
                topology.joining(false);
            }
        }
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
