package dev.spinel.server.commands.server;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.EndpointType;
import dev.spinel.cluster.Topology;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.cluster.ClusterMode;
import dev.spinel.server.engine.Session;

import java.util.ArrayList;
import java.util.List;

/**
 * The replies of CLUSTER INFO, SLOTS and SHARDS, built from one topology snapshot as Redis 7.0 builds
 * them (with cluster-preferred-endpoint-type's endpoints and the nodes' announced hostnames; no TLS cluster ports).
 *
 * <p>Stateless.
 */
final class ClusterReplies {
    private ClusterReplies() {
    }

    static String info(ClusterMode m) {
        Topology t = m.nodesView(); // with this node's line while a join into another group is being applied
        ClusterNode me = t.node(m.myId());
        ClusterNode primary = me.isPrimary() ? me : t.node(me.primaryId());
        int assigned = t.assignedSlots();
        int failed = 0;
        for (ClusterNode n : t.nodes()) {
            if (t.isFailed(n.id())) {
                failed += t.slotCount(n.id());
            }
        }
        return "cluster_state:" + (m.stateOk() ? "ok" : "fail") + "\r\n"
                + "cluster_slots_assigned:" + assigned + "\r\n"
                + "cluster_slots_ok:" + (assigned - failed) + "\r\n"
                + "cluster_slots_pfail:0\r\n"
                + "cluster_slots_fail:" + failed + "\r\n"
                + "cluster_known_nodes:" + t.nodes().size() + "\r\n"
                + "cluster_size:" + t.size() + "\r\n"
                + "cluster_current_epoch:" + t.currentEpoch() + "\r\n"
                + "cluster_my_epoch:" + (primary == null ? me : primary).configEpoch() + "\r\n"
                + "cluster_stats_messages_sent:0\r\n"
                + "cluster_stats_messages_received:0\r\n"
                + "total_cluster_links_buffer_limit_exceeded:0\r\n";
    }

    /** The replication offset of a node as this one knows it (its own, or as the node last told it). */
    private static long offset(ClusterMode m, ClusterNode n) {
        return m.offsetOf(n.id());
    }

    /**
     * Redis's isReplicaAvailable: CLUSTER SLOTS lists a replica neither failed nor at offset 0 (not synced yet, or
     * loading a full resync). Once the nodes have asked each other's offsets, every node answers alike.
     */
    private static boolean available(ClusterMode m, Topology t, ClusterNode replica) {
        return !t.isFailed(replica.id()) && offset(m, replica) != 0;
    }

    static void slots(ClusterMode m, Session s) {
        Topology t = m.topology();
        List<int[]> ranges = new ArrayList<>();
        List<ClusterNode> owners = new ArrayList<>();
        int start = -1;
        String owner = null;
        for (int i = 0; i <= Topology.SLOTS; i++) {
            String o = i < Topology.SLOTS ? t.owner(i) : null;
            if (owner != null && (i == Topology.SLOTS || !owner.equals(o))) {
                ranges.add(new int[]{start, i - 1});
                owners.add(t.node(owner));
                owner = null;
            }
            if (owner == null && o != null) {
                owner = o;
                start = i;
            }
        }
        ReplyBuffer out = s.out();
        out.array(ranges.size());
        for (int r = 0; r < ranges.size(); r++) {
            ClusterNode p = owners.get(r);
            List<ClusterNode> replicas = new ArrayList<>();
            for (ClusterNode rep : t.replicasOf(p.id())) {
                if (available(m, t, rep)) {
                    replicas.add(rep);
                }
            }
            out.array(3 + replicas.size()).integer(ranges.get(r)[0]).integer(ranges.get(r)[1]);
            EndpointType type = m.endpointType();
            node(out, p, type);
            for (ClusterNode rep : replicas) {
                node(out, rep, type);
            }
        }
    }

    /**
     * As Redis 7.0's addNodeToNodeReply: the preferred endpoint (null for unknown-endpoint), the port, the id, then
     * the node's other addresses: its IP unless that is the endpoint, its hostname unless none or the endpoint.
     */
    private static void node(ReplyBuffer out, ClusterNode n, EndpointType type) {
        out.array(4);
        if (type == EndpointType.UNKNOWN_ENDPOINT) {
            out.nullBulk();
        } else {
            out.bulk(n.endpoint(type));
        }
        out.integer(n.port()).bulk(n.id());
        boolean ip = type != EndpointType.IP;
        boolean hostname = type != EndpointType.HOSTNAME && !n.hostname().isEmpty();
        out.map((ip ? 1 : 0) + (hostname ? 1 : 0));
        if (ip) {
            out.bulk("ip").bulk(n.host());
        }
        if (hostname) {
            out.bulk("hostname").bulk(n.hostname());
        }
    }

    static void shards(ClusterMode m, Session s) {
        Topology t = m.topology();
        List<ClusterNode> primaries = new ArrayList<>();
        for (ClusterNode n : t.nodes()) {
            if (n.isPrimary()) {
                primaries.add(n);
            }
        }
        ReplyBuffer out = s.out();
        out.array(primaries.size());
        for (ClusterNode p : primaries) {
            out.map(2).bulk("slots");
            List<int[]> ranges = t.slotRanges(p.id());
            out.array(ranges.size() * 2);
            for (int[] r : ranges) {
                out.integer(r[0]).integer(r[1]);
            }
            out.bulk("nodes");
            List<ClusterNode> members = new ArrayList<>();
            members.add(p);
            members.addAll(t.replicasOf(p.id()));
            out.array(members.size());
            EndpointType type = m.endpointType();
            for (ClusterNode n : members) {
                long off = offset(m, n);
                boolean hostname = !n.hostname().isEmpty(); // as Redis 7.0.15: the field only for a node that has one
                out.map(hostname ? 8 : 7).bulk("id").bulk(n.id()).bulk("port").integer(n.port()).bulk("ip").bulk(n.host())
                        .bulk("endpoint").bulk(n.endpoint(type));
                if (hostname) {
                    out.bulk("hostname").bulk(n.hostname());
                }
                out.bulk("role").bulk(n.isPrimary() ? "master" : "replica")
                        .bulk("replication-offset").integer(off)
                        .bulk("health").bulk(t.isFailed(n.id()) ? "fail" : !n.isPrimary() && off == 0 ? "loading" : "online");
            }
        }
    }
}
