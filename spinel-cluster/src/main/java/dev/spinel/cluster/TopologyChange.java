package dev.spinel.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One administrative change of the topology, as committed through the Raft log: the CLUSTER subcommand
 * that asked for it, with the node that received it ({@code by}: Redis's "myself" for that command).
 * {@link #apply} checks it against the topology it is applied to, in the committed order, and refuses
 * it with Redis's error text; every node applies the same changes in the same order.
 *
 * <p>Immutable.
 */
public sealed interface TopologyChange {

    /** Applies the change to {@code t}, or throws with Redis's error for it. */
    void apply(Topology.Builder t) throws TopologyException;

    /** One line of space-separated tokens; {@link #decode} reverses it. */
    String encode();

    /**
     * This change would leave {@code t} as it is and has no effect beyond it: the node that received it may answer
     * from its applied topology, as it answers any read, without a log entry (the log holds the same changes).
     */
    default boolean inEffect(Topology t) {
        return false;
    }

    static TopologyChange decode(String line) {
        String[] f = line.split(" ");
        return switch (f[0]) {
            case "addnode" -> new AddNode(new ClusterNode(f[1], f[2].equals("-") ? "" : f[2], Integer.parseInt(f[3]),
                    Integer.parseInt(f[4]), f[5].equals("-") ? null : f[5], Long.parseLong(f[6])),
                    ints(f, 7));
            case "addslots" -> new AddSlots(f[1], ints(f, 2));
            case "delslots" -> new DelSlots(f[1], ints(f, 2));
            case "setslot" -> new SetSlot(f[1], Integer.parseInt(f[2]), f[3], f.length > 4 ? f[4] : null);
            case "replicate" -> new Replicate(f[1], f[2]);
            case "forget" -> new Forget(f[1], f[2]);
            case "setconfigepoch" -> new SetConfigEpoch(f[1], Long.parseLong(f[2]));
            case "currentepoch" -> new CurrentEpoch(f[1], Long.parseLong(f[2]));
            case "address" -> new SetAddress(f[1], f[2], Integer.parseInt(f[3]), Integer.parseInt(f[4]));
            case "reset" -> new Reset(f[1]);
            case "failover" -> new Failover(f[1], f[2]);
            case "leave" -> new Leave(f[1]);
            case "health" -> new Health(f[1], f[2].equals("fail"));
            case "settings" -> new NodeSettings(f[1], Topology.announcedHostname(f, 2),
                    Arrays.asList(f).subList(2, f.length).contains(Topology.NOFAILOVER));
            default -> throw new IllegalArgumentException("unknown topology change: " + line);
        };
    }

    private static int[] ints(String[] f, int from) {
        int[] out = new int[f.length - from];
        for (int i = from; i < f.length; i++) {
            out[i - from] = Integer.parseInt(f[i]);
        }
        return out;
    }

    private static String join(String head, int[] slots) {
        StringBuilder b = new StringBuilder(head);
        for (int s : slots) {
            b.append(' ').append(s);
        }
        return b.toString();
    }

    /** The node leaves the topology: its slots unassigned, its migrations closed, its replicas primaries. */
    private static void remove(Topology.Builder t, String nodeId) {
        t.nodes.remove(nodeId);
        t.failed.remove(nodeId);
        for (int s = 0; s < Topology.SLOTS; s++) {
            if (nodeId.equals(t.owners[s])) {
                t.owners[s] = null;
            }
            if (t.migrating[s] != null && (t.migrating[s].nodeId().equals(nodeId) || t.migrating[s].peerId().equals(nodeId))) {
                t.migrating[s] = null;
            }
            if (t.importing[s] != null && (t.importing[s].nodeId().equals(nodeId) || t.importing[s].peerId().equals(nodeId))) {
                t.importing[s] = null;
            }
        }
        List<String> orphans = new ArrayList<>();
        for (Map.Entry<String, ClusterNode> e : t.nodes.entrySet()) {
            if (nodeId.equals(e.getValue().primaryId())) {
                orphans.add(e.getKey());
            }
        }
        for (String o : orphans) {
            t.nodes.put(o, t.nodes.get(o).withPrimary(null));
        }
    }

    private static ClusterNode known(Topology.Builder t, String id, String unknownError) throws TopologyException {
        ClusterNode n = id == null ? null : t.nodes.get(id);
        if (n == null) {
            throw new TopologyException(unknownError + id);
        }
        return n;
    }

    /**
     * A node joins (CLUSTER MEET, as the meeting node saw the other's CLUSTER NODES "myself" line): it is
     * added with the slots it served that nobody serves yet; a node already known gets its new address.
     */
    record AddNode(ClusterNode node, int[] slots) implements TopologyChange {
        @Override
        public void apply(Topology.Builder t) {
            ClusterNode old = t.nodes.get(node.id());
            t.nodes.put(node.id(), old == null ? node : old.withAddress(node.host(), node.port(), node.busPort()));
            for (int s : slots) {
                if (t.owners[s] == null) {
                    t.owners[s] = node.id();
                }
            }
            t.currentEpoch = Math.max(t.currentEpoch, node.configEpoch());
        }

        @Override
        public String encode() {
            return join("addnode " + node.id() + " " + (node.host().isEmpty() ? "-" : node.host()) + " " + node.port()
                    + " " + node.busPort() + " " + (node.primaryId() == null ? "-" : node.primaryId()) + " "
                    + node.configEpoch(), slots);
        }
    }

    /** A node learnt its own address (from the peer it met), as Redis's myself ip. */
    record SetAddress(String by, String host, int port, int busPort) implements TopologyChange {
        @Override
        public void apply(Topology.Builder t) throws TopologyException {
            ClusterNode n = known(t, by, "ERR Unknown node ");
            t.nodes.put(by, n.withAddress(host, port, busPort));
        }

        @Override
        public String encode() {
            return "address " + by + " " + host + " " + port + " " + busPort;
        }
    }

    /**
     * What node {@code by} announces of itself, as Redis gossips it in every ping: its hostname
     * ({@code cluster-announce-hostname}, empty for none) and whether it is set never to take over
     * ({@code cluster-replica-no-failover}, Redis's {@code nofailover} flag).
     */
    record NodeSettings(String by, String hostname, boolean noFailover) implements TopologyChange {
        @Override
        public boolean inEffect(Topology t) {
            ClusterNode n = t.node(by);
            return n != null && n.hostname().equals(hostname) && n.noFailover() == noFailover;
        }

        @Override
        public void apply(Topology.Builder t) throws TopologyException {
            t.nodes.put(by, known(t, by, "ERR Unknown node ").withSettings(hostname, noFailover));
        }

        @Override
        public String encode() {
            return "settings " + by + " " + Topology.HOSTNAME + hostname + (noFailover ? " " + Topology.NOFAILOVER : "");
        }
    }

    /** CLUSTER ADDSLOTS / ADDSLOTSRANGE: every slot (already parsed and in range) goes to {@code by}. */
    record AddSlots(String by, int[] slots) implements TopologyChange {
        @Override
        public void apply(Topology.Builder t) throws TopologyException {
            check(t, slots, false);
            for (int s : slots) {
                t.owners[s] = by;
                // As Redis: the real owner now, so no longer importing it.
                if (t.importing[s] != null && t.importing[s].nodeId().equals(by)) {
                    t.importing[s] = null;
                }
            }
        }

        @Override
        public String encode() {
            return join("addslots " + by, slots);
        }
    }

    /** Redis's checkSlotAssignmentsOrReply, in argument order. */
    private static void check(Topology.Builder t, int[] slots, boolean del) throws TopologyException {
        boolean[] seen = new boolean[Topology.SLOTS];
        for (int s : slots) {
            if (del && t.owners[s] == null) {
                throw new TopologyException("ERR Slot " + s + " is already unassigned");
            } else if (!del && t.owners[s] != null) {
                throw new TopologyException("ERR Slot " + s + " is already busy");
            }
            if (seen[s]) {
                throw new TopologyException("ERR Slot " + s + " specified multiple times");
            }
            seen[s] = true;
        }
    }

    /** CLUSTER DELSLOTS / DELSLOTSRANGE: the slots become unassigned (for every node: the order is one). */
    record DelSlots(String by, int[] slots) implements TopologyChange {
        @Override
        public void apply(Topology.Builder t) throws TopologyException {
            check(t, slots, true);
            for (int s : slots) {
                t.owners[s] = null;
            }
        }

        @Override
        public String encode() {
            return join("delslots " + by, slots);
        }
    }

    /** CLUSTER SETSLOT slot MIGRATING|IMPORTING|NODE node, or STABLE (node null), sent to {@code by}. */
    record SetSlot(String by, int slot, String action, String nodeId) implements TopologyChange {
        /**
         * NODE or STABLE already in effect: `redis-cli --cluster reshard` sends SETSLOT NODE to every primary after
         * the importing and the migrating node committed it; the third needs no Raft round trip (two fsyncs).
         */
        @Override
        public boolean inEffect(Topology t) {
            if (!action.equals("node") && !action.equals("stable")) {
                return false;
            }
            Topology.Builder b = t.toBuilder();
            try {
                apply(b);
            } catch (TopologyException e) {
                return false; // the commit reports it, as every node would
            }
            return b.build().equals(t);
        }

        @Override
        public void apply(Topology.Builder t) throws TopologyException {
            ClusterNode me = known(t, by, "ERR Unknown node ");
            if (!me.isPrimary()) {
                throw new TopologyException("ERR Please use SETSLOT only with masters.");
            }
            switch (action) {
                case "migrating" -> {
                    if (!by.equals(t.owners[slot])) {
                        throw new TopologyException("ERR I'm not the owner of hash slot " + slot);
                    }
                    ClusterNode n = known(t, nodeId, "ERR I don't know about node ");
                    if (!n.isPrimary()) {
                        throw new TopologyException("ERR Target node is not a master");
                    }
                    t.migrating[slot] = new SlotMove(by, nodeId);
                }
                case "importing" -> {
                    if (by.equals(t.owners[slot])) {
                        throw new TopologyException("ERR I'm already the owner of hash slot " + slot);
                    }
                    ClusterNode n = known(t, nodeId, "ERR I don't know about node ");
                    if (!n.isPrimary()) {
                        throw new TopologyException("ERR Target node is not a master");
                    }
                    t.importing[slot] = new SlotMove(by, nodeId);
                }
                case "stable" -> {
                    if (t.importing[slot] != null && t.importing[slot].nodeId().equals(by)) {
                        t.importing[slot] = null;
                    }
                    if (t.migrating[slot] != null && t.migrating[slot].nodeId().equals(by)) {
                        t.migrating[slot] = null;
                    }
                }
                case "node" -> {
                    ClusterNode n = known(t, nodeId, "ERR Unknown node ");
                    if (!n.isPrimary()) {
                        throw new TopologyException("ERR Target node is not a master");
                    }
                    // The keys check ("while I still hold keys") is the receiving node's, made before commit.
                    if (t.migrating[slot] != null && t.migrating[slot].nodeId().equals(by)) {
                        t.migrating[slot] = null;
                    }
                    t.owners[slot] = nodeId;
                    if (nodeId.equals(by) && t.importing[slot] != null && t.importing[slot].nodeId().equals(by)) {
                        // Redis bumps the importer's config epoch without consensus; here the log is the consensus.
                        t.currentEpoch++;
                        t.nodes.put(by, me.withEpoch(t.currentEpoch));
                        t.importing[slot] = null;
                    }
                }
                default -> throw new TopologyException(
                        "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP");
            }
        }

        @Override
        public String encode() {
            return "setslot " + by + " " + slot + " " + action + (nodeId == null ? "" : " " + nodeId);
        }
    }

    /** CLUSTER REPLICATE: {@code by} becomes a replica of {@code primaryId} (its data emptiness checked before). */
    record Replicate(String by, String primaryId) implements TopologyChange {
        @Override
        public void apply(Topology.Builder t) throws TopologyException {
            ClusterNode n = known(t, primaryId, "ERR Unknown node ");
            ClusterNode me = known(t, by, "ERR Unknown node ");
            if (primaryId.equals(by)) {
                throw new TopologyException("ERR Can't replicate myself");
            }
            if (!n.isPrimary()) {
                throw new TopologyException("ERR I can only replicate a master, not a replica.");
            }
            if (me.isPrimary() && Arrays.asList(t.owners).contains(by)) {
                throw new TopologyException("ERR To set a master the node must be empty and without assigned slots.");
            }
            for (int s = 0; s < Topology.SLOTS; s++) {
                if (t.migrating[s] != null && t.migrating[s].nodeId().equals(by)) {
                    t.migrating[s] = null;
                }
                if (t.importing[s] != null && t.importing[s].nodeId().equals(by)) {
                    t.importing[s] = null;
                }
            }
            t.nodes.put(by, me.withPrimary(primaryId));
        }

        @Override
        public String encode() {
            return "replicate " + by + " " + primaryId;
        }
    }

    /**
     * CLUSTER FORGET: the node leaves the topology of every node (Redis forgets it on one node and
     * blacklists it for a minute; with one committed order, forgetting is once for all).
     */
    record Forget(String by, String nodeId) implements TopologyChange {
        @Override
        public void apply(Topology.Builder t) throws TopologyException {
            known(t, nodeId, "ERR Unknown node ");
            ClusterNode me = known(t, by, "ERR Unknown node ");
            if (nodeId.equals(by)) {
                throw new TopologyException("ERR I tried hard but I can't forget myself...");
            }
            if (nodeId.equals(me.primaryId())) {
                throw new TopologyException("ERR Can't forget my master!");
            }
            remove(t, nodeId);
        }

        @Override
        public String encode() {
            return "forget " + by + " " + nodeId;
        }
    }

    /** CLUSTER SET-CONFIG-EPOCH, with Redis's conditions (a lone node whose epoch is still 0). */
    record SetConfigEpoch(String by, long epoch) implements TopologyChange {
        @Override
        public void apply(Topology.Builder t) throws TopologyException {
            ClusterNode me = known(t, by, "ERR Unknown node ");
            if (epoch < 0) {
                throw new TopologyException("ERR Invalid config epoch specified: " + epoch);
            } else if (t.nodes.size() > 1) {
                throw new TopologyException("ERR The user can assign a config epoch only when the node does not know any other node.");
            } else if (me.configEpoch() != 0) {
                throw new TopologyException("ERR Node config epoch is already non-zero");
            }
            t.nodes.put(by, me.withEpoch(epoch));
            t.currentEpoch = Math.max(t.currentEpoch, epoch);
        }

        @Override
        public String encode() {
            return "setconfigepoch " + by + " " + epoch;
        }
    }

    /** The current epoch raised to {@code epoch}: a node's new group after CLUSTER RESET SOFT keeps it, as Redis. */
    record CurrentEpoch(String by, long epoch) implements TopologyChange {
        @Override
        public void apply(Topology.Builder t) throws TopologyException {
            known(t, by, "ERR Unknown node ");
            t.currentEpoch = Math.max(t.currentEpoch, epoch);
        }

        @Override
        public String encode() {
            return "currentepoch " + by + " " + epoch;
        }
    }

    /**
     * CLUSTER RESET SOFT of a node alone in its topology: no slots, no open migrations, a primary. (A node
     * that shares its topology with others cannot reset by itself yet.)
     */
    record Reset(String by) implements TopologyChange {
        @Override
        public void apply(Topology.Builder t) throws TopologyException {
            ClusterNode me = known(t, by, "ERR Unknown node ");
            if (t.nodes.size() > 1) {
                throw new TopologyException("ERR CLUSTER RESET of a node that knows other nodes is not supported yet: "
                        + "CLUSTER FORGET it on the others instead");
            }
            Arrays.fill(t.owners, null);
            Arrays.fill(t.migrating, null);
            Arrays.fill(t.importing, null);
            t.nodes.put(by, me.withPrimary(null));
        }

        @Override
        public String encode() {
            return "reset " + by;
        }
    }

    /**
     * A replica takes over from its primary (automatic failover decided by the Raft leader, or CLUSTER
     * FAILOVER): {@code by} gets the primary's slots and open migrations and a new config epoch (the
     * current epoch, bumped), as Redis's winner of a failover election; the old primary and its other
     * replicas become replicas of {@code by}. Refused when {@code by} no longer replicates
     * {@code oldPrimaryId} (a stale decision: another failover came first).
     */
    record Failover(String by, String oldPrimaryId) implements TopologyChange {
        @Override
        public void apply(Topology.Builder t) throws TopologyException {
            ClusterNode me = known(t, by, "ERR Unknown node ");
            known(t, oldPrimaryId, "ERR Unknown node ");
            if (!oldPrimaryId.equals(me.primaryId())) {
                throw new TopologyException("ERR Node " + by + " is not a replica of " + oldPrimaryId);
            }
            for (int s = 0; s < Topology.SLOTS; s++) {
                if (oldPrimaryId.equals(t.owners[s])) {
                    t.owners[s] = by;
                }
                if (t.migrating[s] != null && t.migrating[s].nodeId().equals(oldPrimaryId)) {
                    t.migrating[s] = new SlotMove(by, t.migrating[s].peerId());
                }
                if (t.importing[s] != null && t.importing[s].nodeId().equals(oldPrimaryId)) {
                    t.importing[s] = new SlotMove(by, t.importing[s].peerId());
                }
            }
            t.currentEpoch++;
            for (Map.Entry<String, ClusterNode> e : t.nodes.entrySet()) {
                ClusterNode n = e.getValue();
                if (n.id().equals(oldPrimaryId) || oldPrimaryId.equals(n.primaryId())) {
                    e.setValue(n.id().equals(by) ? n.withPrimary(null).withEpoch(t.currentEpoch) : n.withPrimary(by));
                }
            }
        }

        @Override
        public String encode() {
            return "failover " + by + " " + oldPrimaryId;
        }
    }

    /** CLUSTER RESET of a node that shares its topology: it leaves it (as if every other node forgot it). */
    record Leave(String by) implements TopologyChange {
        @Override
        public void apply(Topology.Builder t) throws TopologyException {
            known(t, by, "ERR Unknown node ");
            remove(t, by);
        }

        @Override
        public String encode() {
            return "leave " + by;
        }
    }

    /**
     * The Raft leader's verdict on a node: failed (it has not answered the leader for the node timeout: Redis's
     * FAIL, which Redis reaches by a majority of primaries' reports) or back (it answers again). A node that
     * left meanwhile is not known: nothing to change.
     */
    record Health(String nodeId, boolean failed) implements TopologyChange {
        @Override
        public void apply(Topology.Builder t) {
            if (!t.nodes.containsKey(nodeId)) {
                return;
            }
            if (failed) {
                t.failed.add(nodeId);
            } else {
                t.failed.remove(nodeId);
            }
        }

        @Override
        public String encode() {
            return "health " + nodeId + (failed ? " fail" : " ok");
        }
    }
}
