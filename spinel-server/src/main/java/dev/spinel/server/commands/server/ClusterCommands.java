package dev.spinel.server.commands.server;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.NodesFile;
import dev.spinel.cluster.Topology;
import dev.spinel.cluster.TopologyChange;
import dev.spinel.protocol.Args;
import dev.spinel.protocol.CommandMetadata;
import dev.spinel.server.commands.common.Help;
import dev.spinel.server.cluster.ClusterMode;
import dev.spinel.server.engine.CommandHandler;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.KeySlot;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * CLUSTER and its subcommands, READONLY, READWRITE and ASKING. Without {@code cluster-enabled} every one
 * answers "cluster support disabled", as Redis does (cluster-aware clients probing a standalone server
 * learn it so). In cluster mode they answer as Redis 7.0 does, from the topology ({@link ClusterMode});
 * changes are committed through it, so every node sees them in one order.
 *
 * <p>Thread-safety: stateless; the topology is read as one immutable snapshot per command.
 */
public final class ClusterCommands {
    private static final RedisError DISABLED = new RedisError("ERR This instance has cluster support disabled");
    private static final RedisError BAD_SLOT = new RedisError("ERR Invalid or out of range slot");
    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");

    private ClusterCommands() {
    }

    public static void register(CommandTable t, ClusterMode mode) {
        if (mode == null) {
            t.register("cluster", ClusterCommands::disabled);
            for (String sub : CommandMetadata.get("cluster").subcommands().keySet()) {
                t.registerSub("cluster", sub, ClusterCommands::disabled);
            }
            t.register("readonly", ClusterCommands::disabled);
            t.register("readwrite", ClusterCommands::disabled);
            t.register("asking", ClusterCommands::disabled);
            return;
        }
        t.register("cluster", ClusterCommands::disabled);
        for (String sub : CommandMetadata.get("cluster").subcommands().keySet()) {
            t.registerSub("cluster", sub, handler(sub, mode));
        }
        t.register("readonly", (s, a) -> {
            s.cluster().readOnly(true);
            s.out().ok();
        });
        t.register("readwrite", (s, a) -> {
            s.cluster().readOnly(false);
            s.out().ok();
        });
        t.register("asking", (s, a) -> {
            s.cluster().asking(true);
            s.out().ok();
        });
    }

    static void disabled(Session s, Args a) {
        throw DISABLED;
    }

    private static CommandHandler handler(String sub, ClusterMode m) {
        return switch (sub) {
            case "help" -> (s, a) -> help(s);
            case "myid" -> (s, a) -> s.out().bulk(m.myId());
            case "keyslot" -> (s, a) -> s.out().integer(KeySlot.of(a.buffer(), a.offset(2), a.length(2)));
            case "countkeysinslot" -> (s, a) -> countKeys(m, s, a);
            case "getkeysinslot" -> (s, a) -> getKeys(m, s, a);
            case "nodes" -> (s, a) -> s.out().verbatim(NodesFile.describe(m.nodesView(), m.myId(), m.peers()));
            case "info" -> (s, a) -> s.out().verbatim(ClusterReplies.info(m));
            case "slots" -> (s, a) -> ClusterReplies.slots(m, s);
            case "shards" -> (s, a) -> ClusterReplies.shards(m, s);
            case "links" -> (s, a) -> s.out().array(0); // no Redis bus links: the topology travels on Raft
            case "meet" -> (s, a) -> meet(m, s, a);
            case "addslots" -> (s, a) -> slots(m, s, a, false);
            case "delslots" -> (s, a) -> slots(m, s, a, true);
            case "addslotsrange" -> (s, a) -> slotRanges(m, s, a, false);
            case "delslotsrange" -> (s, a) -> slotRanges(m, s, a, true);
            case "flushslots" -> (s, a) -> flushSlots(m, s);
            case "setslot" -> (s, a) -> setSlot(m, s, a);
            case "replicate" -> (s, a) -> replicate(m, s, a);
            case "replicas", "slaves" -> (s, a) -> replicas(m, s, a);
            case "forget" -> (s, a) -> forget(m, s, a.string(2));
            case "count-failure-reports" -> (s, a) -> {
                known(m.topology(), a.string(2));
                s.out().integer(0); // no failure reports: Raft, not gossip, decides who is down
            };
            case "set-config-epoch" -> (s, a) -> {
                long epoch;
                try {
                    epoch = a.parseLong(2);
                } catch (NumberFormatException e) {
                    throw Errors.NOT_INTEGER;
                }
                m.commit(new TopologyChange.SetConfigEpoch(m.myId(), epoch));
                s.out().ok();
            };
            case "saveconfig" -> (s, a) -> {
                try {
                    NodesFile.write(m.nodesFile(), m.topology(), m.myId());
                } catch (IOException e) {
                    throw new RedisError("ERR error saving the cluster node config: " + e.getMessage());
                }
                s.out().ok();
            };
            case "reset" -> (s, a) -> reset(m, s, a);
            case "failover" -> (s, a) -> failover(m, s, a);
            default -> (s, a) -> {
                throw new RedisError("ERR CLUSTER " + sub.toUpperCase(Locale.ROOT) + " is not supported by Spinel yet");
            };
        };
    }

    private static void help(Session s) {
        Help.reply(s, "CLUSTER",
                "ADDSLOTS <slot> [<slot> ...]",
                "    Assign slots to current node.",
                "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
                "    Assign slots which are between <start-slot> and <end-slot> to current node.",
                "BUMPEPOCH",
                "    Advance the cluster config epoch.",
                "COUNT-FAILURE-REPORTS <node-id>",
                "    Return number of failure reports for <node-id>.",
                "COUNTKEYSINSLOT <slot>",
                "    Return the number of keys in <slot>.",
                "DELSLOTS <slot> [<slot> ...]",
                "    Delete slots information from current node.",
                "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
                "    Delete slots information which are between <start-slot> and <end-slot> from current node.",
                "FAILOVER [FORCE|TAKEOVER]",
                "    Promote current replica node to being a master.",
                "FORGET <node-id>",
                "    Remove a node from the cluster.",
                "GETKEYSINSLOT <slot> <count>",
                "    Return key names stored by current node in a slot.",
                "FLUSHSLOTS",
                "    Delete current node own slots information.",
                "INFO",
                "    Return information about the cluster.",
                "KEYSLOT <key>",
                "    Return the hash slot for <key>.",
                "MEET <ip> <port> [<bus-port>]",
                "    Connect nodes into a working cluster.",
                "MYID",
                "    Return the node id.",
                "NODES",
                "    Return cluster configuration seen by node. Output format:",
                "    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
                "REPLICATE <node-id>",
                "    Configure current node as replica to <node-id>.",
                "RESET [HARD|SOFT]",
                "    Reset current node (default: soft).",
                "SET-CONFIG-EPOCH <epoch>",
                "    Set config epoch of current node.",
                "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
                "    Set slot state.",
                "REPLICAS <node-id>",
                "    Return <node-id> replicas.",
                "SAVECONFIG",
                "    Force saving cluster configuration on disk.",
                "SLOTS",
                "    Return information about slots range mappings. Each range is made of:",
                "    start, end, master and replicas IP addresses, ports and ids",
                "SHARDS",
                "    Return information about slot range mappings and the nodes associated with them.",
                "LINKS",
                "    Return information about all network links between this node and its peers.",
                "    Output format is an array where each array element is a map containing attributes of a link");
    }

    private static long integer(Args a, int i) {
        try {
            return a.parseLong(i);
        } catch (NumberFormatException e) {
            throw Errors.NOT_INTEGER;
        }
    }

    private static int slot(Args a, int i) {
        long v;
        try {
            v = a.parseLong(i);
        } catch (NumberFormatException e) {
            throw BAD_SLOT;
        }
        if (v < 0 || v >= Topology.SLOTS) {
            throw BAD_SLOT;
        }
        return (int) v;
    }

    /**
     * CLUSTER FORGET, committed: the node leaves every node's topology at once. Tools send one FORGET to every node, as
     * each Redis node forgets on its own (redis-cli's --cluster del-node, the Tcl suites after a CLUSTER RESET): a
     * node already gone answers +OK too, when it was known here when this FORGET was sent (another FORGET, or its own
     * reset, came first in the Raft order) or left within the last minute ({@code RemovedNodes}).
     */
    private static void forget(ClusterMode m, Session s, String id) {
        boolean knownHere = m.topology().node(id) != null;
        try {
            m.commit(new TopologyChange.Forget(m.myId(), id));
        } catch (RedisError e) {
            boolean gone = e.getMessage().equals("ERR Unknown node " + id) && (knownHere || m.removedRecently(id));
            if (!gone) {
                throw e;
            }
        }
        s.out().ok();
    }

    private static void countKeys(ClusterMode m, Session s, Args a) {
        long slot = integer(a, 2);
        if (slot < 0 || slot >= Topology.SLOTS) {
            throw new RedisError("ERR Invalid slot");
        }
        s.out().integer(m.slotIndex().count((int) slot));
    }

    private static void getKeys(ClusterMode m, Session s, Args a) {
        long slot = integer(a, 2);
        long max = integer(a, 3);
        if (slot < 0 || slot >= Topology.SLOTS || max < 0) {
            throw new RedisError("ERR Invalid slot or number of keys");
        }
        List<byte[]> keys = m.slotIndex().keys((int) slot, (int) Math.min(max, Integer.MAX_VALUE));
        s.out().array(keys.size());
        for (byte[] k : keys) {
            s.out().bulk(k);
        }
    }

    private static void meet(ClusterMode m, Session s, Args a) {
        if (a.count() == 6 && a.string(5).equals(ClusterMode.BUS_LINK)) {
            s.cluster().busLink(true); // another node's PUBLISH link: what it publishes here is not passed on
            s.out().ok();
            return;
        }
        if (a.count() == 6 && a.string(5).equals(ClusterMode.GROUP)) {
            s.out().bulk(m.raftGroup()); // a meeting node asks whether the two are in one Raft group yet
            return;
        }
        // A sixth argument is Spinel's own: a node asking to have its group brought in (see ClusterMode.meet).
        boolean join = a.count() == 6 && a.string(5).equals(ClusterMode.JOIN);
        if (a.count() != 4 && a.count() != 5 && !join) {
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for '" + a.cString(1) + "'. Try CLUSTER HELP.");
        }
        long port;
        long bus;
        try {
            port = a.parseLong(3);
        } catch (NumberFormatException e) {
            throw new RedisError("ERR Invalid TCP base port specified: " + a.string(3));
        }
        if (a.count() >= 5) {
            try {
                bus = a.parseLong(4);
            } catch (NumberFormatException e) {
                throw new RedisError("ERR Invalid TCP bus port specified: " + a.string(4));
            }
        } else {
            bus = port + 10000;
        }
        String ip = a.string(2);
        if (!ipLiteral(ip) || port < 0 || port > 65535 || bus < 0 || bus > 65535) {
            throw new RedisError("ERR Invalid node address specified: " + ip + ":" + a.string(3));
        }
        m.meet(ip, (int) port, (int) bus, join);
        s.out().ok();
    }

    /** Redis's MEET takes an IP address only (inet_pton), no host name. */
    private static boolean ipLiteral(String ip) {
        var v4 = IPV4.matcher(ip);
        if (v4.matches()) {
            for (int g = 1; g <= 4; g++) {
                if (Integer.parseInt(v4.group(g)) > 255) {
                    return false;
                }
            }
            return true;
        }
        if (!ip.contains(":")) {
            return false;
        }
        try {
            InetAddress.getByName(ip); // a literal with ':' is parsed, never looked up
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** ADDSLOTS / DELSLOTS: every argument parsed first, then Redis's checks in argument order. */
    private static void slots(ClusterMode m, Session s, Args a, boolean del) {
        int[] slots = new int[a.count() - 2];
        for (int i = 2; i < a.count(); i++) {
            slots[i - 2] = slot(a, i);
        }
        Topology t = m.topology();
        boolean[] seen = new boolean[Topology.SLOTS];
        for (int slot : slots) {
            check(t, seen, slot, del);
        }
        m.commit(del ? new TopologyChange.DelSlots(m.myId(), slots) : new TopologyChange.AddSlots(m.myId(), slots));
        s.out().ok();
    }

    private static void check(Topology t, boolean[] seen, int slot, boolean del) {
        if (del && t.owner(slot) == null) {
            throw new RedisError("ERR Slot " + slot + " is already unassigned");
        } else if (!del && t.owner(slot) != null) {
            throw new RedisError("ERR Slot " + slot + " is already busy");
        }
        if (seen[slot]) {
            throw new RedisError("ERR Slot " + slot + " specified multiple times");
        }
        seen[slot] = true;
    }

    /** ADDSLOTSRANGE / DELSLOTSRANGE: pairs parsed and checked in order, as Redis. */
    private static void slotRanges(ClusterMode m, Session s, Args a, boolean del) {
        if (a.count() % 2 == 1) {
            throw Errors.wrongArgs(del ? "cluster|delslotsrange" : "cluster|addslotsrange");
        }
        Topology t = m.topology();
        boolean[] seen = new boolean[Topology.SLOTS];
        List<Integer> slots = new ArrayList<>();
        for (int i = 2; i < a.count(); i += 2) {
            int start = slot(a, i);
            int end = slot(a, i + 1);
            if (start > end) {
                throw new RedisError("ERR start slot number " + start + " is greater than end slot number " + end);
            }
            for (int x = start; x <= end; x++) {
                check(t, seen, x, del);
                slots.add(x);
            }
        }
        int[] all = slots.stream().mapToInt(Integer::intValue).toArray();
        m.commit(del ? new TopologyChange.DelSlots(m.myId(), all) : new TopologyChange.AddSlots(m.myId(), all));
        s.out().ok();
    }

    private static void flushSlots(ClusterMode m, Session s) {
        if (s.engine().keyspace().db(0).size() != 0) {
            throw new RedisError("ERR DB must be empty to perform CLUSTER FLUSHSLOTS.");
        }
        List<Integer> mine = new ArrayList<>();
        for (int[] r : m.topology().slotRanges(m.myId())) {
            for (int x = r[0]; x <= r[1]; x++) {
                mine.add(x);
            }
        }
        if (!mine.isEmpty()) {
            m.commit(new TopologyChange.DelSlots(m.myId(), mine.stream().mapToInt(Integer::intValue).toArray()));
        }
        s.out().ok();
    }

    private static ClusterNode known(Topology t, String id) {
        ClusterNode n = t.node(id);
        if (n == null) {
            throw new RedisError("ERR Unknown node " + id);
        }
        return n;
    }

    /** This node as its CLUSTER NODES lists it: also while a join into another group is being applied. */
    private static ClusterNode self(ClusterMode m) {
        return m.nodesView().node(m.myId());
    }

    private static void setSlot(ClusterMode m, Session s, Args a) {
        Topology t = m.topology();
        ClusterNode me = self(m);
        if (!me.isPrimary()) {
            throw new RedisError("ERR Please use SETSLOT only with masters.");
        }
        int slot = slot(a, 2);
        String action = a.string(3).toLowerCase(Locale.ROOT);
        boolean withNode = action.equals("migrating") || action.equals("importing") || action.equals("node");
        if (!(withNode && a.count() == 5) && !(action.equals("stable") && a.count() == 4)) {
            throw new RedisError("ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP");
        }
        String node = withNode ? a.string(4) : null;
        if (action.equals("node")) {
            ClusterNode n = known(t, node);
            if (n.isPrimary() && m.myId().equals(t.owner(slot)) && !node.equals(m.myId())
                    && m.slotIndex().count(slot) != 0) {
                throw new RedisError("ERR Can't assign hashslot " + slot
                        + " to a different node while I still hold keys for this hash slot.");
            }
        }
        m.commit(new TopologyChange.SetSlot(m.myId(), slot, action, node));
        s.out().ok();
    }

    private static void replicate(ClusterMode m, Session s, Args a) {
        Topology t = m.topology();
        String id = a.string(2);
        ClusterNode n = known(t, id);
        if (id.equals(m.myId())) {
            throw new RedisError("ERR Can't replicate myself");
        }
        if (!n.isPrimary()) {
            throw new RedisError("ERR I can only replicate a master, not a replica.");
        }
        if (self(m).isPrimary() && (t.slotCount(m.myId()) != 0 || s.engine().keyspace().db(0).size() != 0)) {
            throw new RedisError("ERR To set a master the node must be empty and without assigned slots.");
        }
        m.commit(new TopologyChange.Replicate(m.myId(), id));
        s.out().ok();
    }

    private static void replicas(ClusterMode m, Session s, Args a) {
        Topology t = m.topology();
        ClusterNode n = known(t, a.string(2));
        if (!n.isPrimary()) {
            throw new RedisError("ERR The specified node is not a master");
        }
        List<ClusterNode> rs = t.replicasOf(n.id());
        s.out().array(rs.size());
        for (ClusterNode r : rs) {
            String all = NodesFile.describe(t, m.myId(), m.peers());
            for (String line : all.split("\n")) {
                if (line.startsWith(r.id() + " ")) {
                    s.out().bulk(line);
                }
            }
        }
    }

    /** CLUSTER FAILOVER [FORCE|TAKEOVER], Redis's argument checks. */
    private static void failover(ClusterMode m, Session s, Args a) {
        if (a.count() > 3) {
            throw unknownSubcommand(a);
        }
        boolean force = false;
        if (a.count() == 3) {
            if (a.is(2, "FORCE") || a.is(2, "TAKEOVER")) {
                force = true;
            } else {
                throw Errors.SYNTAX;
            }
        }
        m.failover(force);
        s.out().ok();
    }

    /** Redis's answer to a subcommand with more arguments than it takes. */
    private static RedisError unknownSubcommand(Args a) {
        return new RedisError("ERR unknown subcommand or wrong number of arguments for '" + a.cString(1)
                + "'. Try CLUSTER HELP.");
    }

    private static void reset(ClusterMode m, Session s, Args a) {
        if (a.count() > 3) {
            throw unknownSubcommand(a);
        }
        boolean hard = false;
        if (a.count() == 3) {
            if (a.is(2, "HARD")) {
                hard = true;
            } else if (!a.is(2, "SOFT")) {
                throw Errors.SYNTAX;
            }
        }
        ClusterNode me = self(m);
        if (me.isPrimary() && s.engine().keyspace().db(0).size() != 0) {
            throw new RedisError("ERR CLUSTER RESET can't be called with master nodes containing keys");
        }
        m.reset(hard);
        s.out().ok();
    }
}
