package dev.spinel.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The cluster's topology at one point of the committed order: the nodes, which primary owns each of
 * the 16384 slots, open slot migrations, the current epoch, and which nodes are failed (Redis's FAIL flag,
 * here committed by the Raft leader when a node stops answering it). Changes ({@link TopologyChange}) make
 * new instances; the text form ({@link #encode}, {@link #decode}) is what Raft snapshots hold.
 *
 * <p>Immutable, so any thread may read one it was handed.
 */
public final class Topology {
    public static final int SLOTS = 16384;

    private final long currentEpoch;
    private final Map<String, ClusterNode> nodes;
    private final String[] owners;
    private final SlotMove[] migrating;
    private final SlotMove[] importing;
    private final Set<String> failed;

    private Topology(long currentEpoch, Map<String, ClusterNode> nodes, String[] owners, SlotMove[] migrating,
                     SlotMove[] importing, Set<String> failed) {
        this.currentEpoch = currentEpoch;
        this.nodes = Collections.unmodifiableMap(nodes);
        this.owners = owners;
        this.migrating = migrating;
        this.importing = importing;
        this.failed = Collections.unmodifiableSet(failed);
    }

    /** A topology with no node (a Raft group's state before its first entry). */
    public static Topology empty() {
        return new Topology(0, new LinkedHashMap<>(), new String[SLOTS], new SlotMove[SLOTS], new SlotMove[SLOTS], new TreeSet<>());
    }

    /** A topology with one node and no slot assigned. */
    public static Topology of(ClusterNode self) {
        Map<String, ClusterNode> n = new LinkedHashMap<>();
        n.put(self.id(), self);
        return new Topology(0, n, new String[SLOTS], new SlotMove[SLOTS], new SlotMove[SLOTS], new TreeSet<>());
    }

    /** {@code t} with {@code n} added or replaced (its slots unchanged). */
    public static Topology withNode(Topology t, ClusterNode n) {
        Builder b = t.toBuilder();
        b.nodes.put(n.id(), n);
        return b.build();
    }

    /** {@code t} with its current epoch raised to {@code epoch} (CLUSTER RESET SOFT keeps it, as Redis). */
    public static Topology withCurrentEpoch(Topology t, long epoch) {
        Builder b = t.toBuilder();
        b.currentEpoch = Math.max(b.currentEpoch, epoch);
        return b.build();
    }

    public long currentEpoch() {
        return currentEpoch;
    }

    public Collection<ClusterNode> nodes() {
        return nodes.values();
    }

    public ClusterNode node(String id) {
        return nodes.get(id);
    }

    /** Whether the node is flagged failed (Redis's FAIL): the Raft leader has not heard from it for the node timeout. */
    public boolean isFailed(String id) {
        return failed.contains(id);
    }

    /** The id of the primary serving {@code slot}, or null. */
    public String owner(int slot) {
        return owners[slot];
    }

    public SlotMove migrating(int slot) {
        return migrating[slot];
    }

    public SlotMove importing(int slot) {
        return importing[slot];
    }

    /** The slots of {@code nodeId} as inclusive [start, end] pairs, ascending. */
    public List<int[]> slotRanges(String nodeId) {
        List<int[]> out = new ArrayList<>();
        int start = -1;
        for (int s = 0; s <= SLOTS; s++) {
            boolean mine = s < SLOTS && nodeId.equals(owners[s]);
            if (mine && start < 0) {
                start = s;
            } else if (!mine && start >= 0) {
                out.add(new int[]{start, s - 1});
                start = -1;
            }
        }
        return out;
    }

    public int slotCount(String nodeId) {
        int n = 0;
        for (String o : owners) {
            if (nodeId.equals(o)) {
                n++;
            }
        }
        return n;
    }

    public int assignedSlots() {
        int n = 0;
        for (String o : owners) {
            if (o != null) {
                n++;
            }
        }
        return n;
    }

    /** The replicas of {@code primaryId}, in node order. */
    public List<ClusterNode> replicasOf(String primaryId) {
        List<ClusterNode> out = new ArrayList<>();
        for (ClusterNode n : nodes.values()) {
            if (primaryId.equals(n.primaryId())) {
                out.add(n);
            }
        }
        return out;
    }

    /** Redis's cluster_size: primaries serving at least one slot. */
    public int size() {
        int n = 0;
        for (ClusterNode c : nodes.values()) {
            if (c.isPrimary() && slotCount(c.id()) > 0) {
                n++;
            }
        }
        return n;
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** A mutable copy, for {@link TopologyChange}s. Not thread-safe. */
    public static final class Builder {
        long currentEpoch;
        final Map<String, ClusterNode> nodes;
        final String[] owners;
        final SlotMove[] migrating;
        final SlotMove[] importing;
        final Set<String> failed;

        Builder(Topology t) {
            currentEpoch = t.currentEpoch;
            nodes = new LinkedHashMap<>(t.nodes);
            owners = t.owners.clone();
            migrating = t.migrating.clone();
            importing = t.importing.clone();
            failed = new TreeSet<>(t.failed);
        }

        public Topology build() {
            return new Topology(currentEpoch, nodes, owners, migrating, importing, failed);
        }
    }

    // ------------------------------------------------------------------ text form

    /** The token of a node line (and of {@link TopologyChange.NodeSettings}) that carries its announced hostname. */
    static final String HOSTNAME = "hostname=";
    /** The token of a node line (and of {@link TopologyChange.NodeSettings}) of a node set not to take over. */
    static final String NOFAILOVER = "nofailover";

    /** The hostname among the tokens of {@code f} from {@code from} on (empty when none). */
    static String announcedHostname(String[] f, int from) {
        for (int i = from; i < f.length; i++) {
            if (f[i].startsWith(HOSTNAME)) {
                return f[i].substring(HOSTNAME.length());
            }
        }
        return "";
    }

    /** One line per fact; see {@link #decode}. */
    public String encode() {
        StringBuilder b = new StringBuilder();
        b.append("epoch ").append(currentEpoch).append('\n');
        for (ClusterNode n : nodes.values()) {
            b.append("node ").append(n.id()).append(' ').append(n.host().isEmpty() ? "-" : n.host()).append(' ')
                    .append(n.port()).append(' ').append(n.busPort()).append(' ')
                    .append(n.primaryId() == null ? "-" : n.primaryId()).append(' ').append(n.configEpoch());
            // what a node announces of itself, only when set (the lines of a topology without any are unchanged)
            if (!n.hostname().isEmpty()) {
                b.append(' ').append(HOSTNAME).append(n.hostname());
            }
            if (n.noFailover()) {
                b.append(' ').append(NOFAILOVER);
            }
            b.append('\n');
            for (int[] r : slotRanges(n.id())) {
                b.append("slots ").append(n.id()).append(' ').append(r[0]).append(' ').append(r[1]).append('\n');
            }
        }
        for (int s = 0; s < SLOTS; s++) {
            if (migrating[s] != null) {
                b.append("migrating ").append(s).append(' ').append(migrating[s].nodeId()).append(' ')
                        .append(migrating[s].peerId()).append('\n');
            }
            if (importing[s] != null) {
                b.append("importing ").append(s).append(' ').append(importing[s].nodeId()).append(' ')
                        .append(importing[s].peerId()).append('\n');
            }
        }
        for (String id : failed) {
            b.append("failed ").append(id).append('\n');
        }
        return b.toString();
    }

    public static Topology decode(String text) {
        long epoch = 0;
        Map<String, ClusterNode> nodes = new LinkedHashMap<>();
        String[] owners = new String[SLOTS];
        SlotMove[] mig = new SlotMove[SLOTS];
        SlotMove[] imp = new SlotMove[SLOTS];
        Set<String> failed = new TreeSet<>();
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split(" ");
            switch (f[0]) {
                case "epoch" -> epoch = Long.parseLong(f[1]);
                case "node" -> nodes.put(f[1], new ClusterNode(f[1], f[2].equals("-") ? "" : f[2],
                        Integer.parseInt(f[3]), Integer.parseInt(f[4]), f[5].equals("-") ? null : f[5],
                        Long.parseLong(f[6]), announcedHostname(f, 7), Arrays.asList(f).subList(7, f.length).contains(NOFAILOVER)));
                case "slots" -> Arrays.fill(owners, Integer.parseInt(f[2]), Integer.parseInt(f[3]) + 1, f[1]);
                case "migrating" -> mig[Integer.parseInt(f[1])] = new SlotMove(f[2], f[3]);
                case "importing" -> imp[Integer.parseInt(f[1])] = new SlotMove(f[2], f[3]);
                case "failed" -> failed.add(f[1]);
                default -> throw new IllegalArgumentException("bad topology line: " + line);
            }
        }
        return new Topology(epoch, nodes, owners, mig, imp, failed);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Topology t && encode().equals(t.encode());
    }

    @Override
    public int hashCode() {
        return encode().hashCode();
    }
}
