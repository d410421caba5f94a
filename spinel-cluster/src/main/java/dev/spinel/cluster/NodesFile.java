package dev.spinel.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Redis's node description lines, for CLUSTER NODES and the {@code nodes.conf} file Redis keeps
 * (the same lines, then {@code vars currentEpoch N lastVoteEpoch 0}): {@code <id> <ip:port@cport>
 * <flags> <primary|-> <ping-sent> <pong-recv> <config-epoch> <link-state> <slots...>} ({@code ip:port@cport,hostname}
 * when the node announces a hostname), with this node's
 * open migrations as {@code [slot->-id]} / {@code [slot-<-id]}.
 *
 * <p>Stateless and thread-safe.
 */
public final class NodesFile {
    private NodesFile() {
    }

    /** The CLUSTER NODES text of {@code t} as node {@code myId} sees it; {@code pong} is the pong-recv of others. */
    public static String describe(Topology t, String myId, long pong) {
        return describe(t, myId, PeerView.fixed(pong));
    }

    /**
     * The CLUSTER NODES text of {@code t} as node {@code myId} sees it, with its {@code peers}' ping and pong times; a
     * node that is not failed but suspected by this one is flagged {@code fail?} (Redis's PFAIL: its link still shown
     * connected, as Redis shows it).
     */
    public static String describe(Topology t, String myId, PeerView peers) {
        StringBuilder b = new StringBuilder();
        for (ClusterNode n : t.nodes()) {
            boolean me = n.id().equals(myId);
            b.append(n.id()).append(' ').append(n.host()).append(':').append(n.port()).append('@').append(n.busPort());
            if (!n.hostname().isEmpty()) {
                b.append(',').append(n.hostname());
            }
            // Redis's flags, in the order of its redisNodeFlagsTable
            b.append(' ').append(me ? "myself," : "").append(n.isPrimary() ? "master" : "slave")
                    .append(t.isFailed(n.id()) ? ",fail" : !me && peers.suspected(n.id()) ? ",fail?" : "")
                    .append(n.noFailover() ? ",nofailover " : " ")
                    .append(n.isPrimary() ? "-" : n.primaryId()).append(' ').append(me ? 0 : peers.pingSent(n.id()))
                    .append(' ').append(me ? 0 : peers.pongReceived(n.id())).append(' ');
            ClusterNode primary = n.isPrimary() ? n : t.node(n.primaryId());
            // Redis's link column: its bus link to a failed node is down (myself is always "connected")
            b.append(primary == null ? n.configEpoch() : primary.configEpoch())
                    .append(!me && t.isFailed(n.id()) ? " disconnected" : " connected");
            for (int[] r : t.slotRanges(n.id())) {
                b.append(' ').append(r[0]);
                if (r[1] != r[0]) {
                    b.append('-').append(r[1]);
                }
            }
            if (me) {
                for (int s = 0; s < Topology.SLOTS; s++) {
                    SlotMove m = t.migrating(s);
                    SlotMove i = t.importing(s);
                    if (m != null && m.nodeId().equals(myId)) {
                        b.append(" [").append(s).append("->-").append(m.peerId()).append(']');
                    } else if (i != null && i.nodeId().equals(myId)) {
                        b.append(" [").append(s).append("-<-").append(i.peerId()).append(']');
                    }
                }
            }
            b.append('\n');
        }
        return b.toString();
    }

    /** Writes {@code nodes.conf} as Redis does (a whole new file renamed over the old one). */
    public static void write(Path file, Topology t, String myId) throws IOException {
        String text = describe(t, myId, 0) + "vars currentEpoch " + t.currentEpoch() + " lastVoteEpoch 0\n";
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp-" + ProcessHandle.current().pid());
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** A {@code nodes.conf} read back: this node's id and the topology it held. */
    public record Loaded(String myId, Topology topology) {
    }

    /** Reads a {@code nodes.conf} written by Redis or Spinel; null when there is none. */
    public static Loaded read(Path file) throws IOException {
        if (!Files.exists(file)) {
            return null;
        }
        String myId = null;
        long epoch = 0;
        StringBuilder enc = new StringBuilder();
        List<String> moves = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String[] f = line.trim().split(" ");
            if (f.length == 0 || f[0].isEmpty()) {
                continue;
            }
            if (f[0].equals("vars")) {
                for (int i = 1; i + 1 < f.length; i += 2) {
                    if (f[i].equals("currentEpoch")) {
                        epoch = Long.parseLong(f[i + 1]);
                    }
                }
                continue;
            }
            if (f.length < 8) {
                throw new IOException("Unrecoverable error: corrupted cluster config file \"" + line + "\".");
            }
            String addr = f[1];
            int comma = addr.indexOf(',');
            String hostname = "";
            if (comma >= 0) { // ip:port@cport,hostname (Redis 7.2 adds ,key=value fields after it, not read here)
                int end = addr.indexOf(',', comma + 1);
                hostname = addr.substring(comma + 1, end < 0 ? addr.length() : end);
                addr = addr.substring(0, comma);
            }
            int at = addr.lastIndexOf('@');
            int colon = addr.lastIndexOf(':', at);
            String host = addr.substring(0, colon);
            int port = Integer.parseInt(addr.substring(colon + 1, at));
            int bus = Integer.parseInt(addr.substring(at + 1));
            if (f[2].contains("myself")) {
                myId = f[0];
            }
            enc.append("node ").append(f[0]).append(' ').append(host.isEmpty() ? "-" : host).append(' ').append(port)
                    .append(' ').append(bus).append(' ').append(f[3]).append(' ').append(f[6]);
            if (!hostname.isEmpty()) {
                enc.append(' ').append(Topology.HOSTNAME).append(hostname);
            }
            if (Arrays.asList(f[2].split(",")).contains(Topology.NOFAILOVER)) {
                enc.append(' ').append(Topology.NOFAILOVER);
            }
            enc.append('\n');
            for (int i = 8; i < f.length; i++) {
                String s = f[i];
                if (s.startsWith("[")) {
                    String body = s.substring(1, s.length() - 1);
                    int mig = body.indexOf("->-");
                    int imp = body.indexOf("-<-");
                    if (mig > 0) {
                        moves.add("migrating " + body.substring(0, mig) + " " + f[0] + " " + body.substring(mig + 3));
                    } else if (imp > 0) {
                        moves.add("importing " + body.substring(0, imp) + " " + f[0] + " " + body.substring(imp + 3));
                    }
                    continue;
                }
                int dash = s.indexOf('-');
                String a = dash < 0 ? s : s.substring(0, dash);
                String z = dash < 0 ? s : s.substring(dash + 1);
                enc.append("slots ").append(f[0]).append(' ').append(a).append(' ').append(z).append('\n');
            }
        }
        if (myId == null) {
            throw new IOException("Unrecoverable error: no myself node in the cluster config file " + file);
        }
        for (String m : moves) {
            enc.append(m).append('\n');
        }
        return new Loaded(myId, Topology.decode("epoch " + epoch + "\n" + enc));
    }
}
