package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.ClusterTopology;
import dev.spinel.cluster.TopologyChange;
import dev.spinel.cluster.TopologyException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
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

    private Meeting() {
    }

    static void meet(ClusterMode mode, ClusterTopology topology, String host, int port, int bus)
            throws IOException, TopologyException {
        String nodes;
        String localAddress;
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), TIMEOUT_MS);
            s.setSoTimeout(TIMEOUT_MS);
            localAddress = s.getLocalAddress().getHostAddress();
            OutputStream out = s.getOutputStream();
            out.write("*2\r\n$7\r\nCLUSTER\r\n$5\r\nNODES\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            nodes = readBulk(s.getInputStream());
        }
        ClusterNode me = topology.current().node(topology.myId());
        if (me != null && me.host().isEmpty()) {
            topology.commit(new TopologyChange.SetAddress(me.id(), localAddress, me.port(), me.busPort()));
        }
        for (String line : nodes.split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length < 8 || !f[2].contains("myself")) {
                continue;
            }
            if (f[0].equals(topology.myId())) {
                return; // met ourselves
            }
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
            ClusterNode other = new ClusterNode(f[0], host, port, bus, null, Long.parseLong(f[6]));
            topology.join(other, slots.stream().mapToInt(Integer::intValue).toArray());
            return;
        }
        throw new IOException("no myself line in the CLUSTER NODES of " + host + ":" + port);
    }

    private static String readBulk(InputStream in) throws IOException {
        String head = readLine(in);
        if (head.startsWith("-")) {
            throw new IOException(head.substring(1));
        }
        if (!head.startsWith("$") && !head.startsWith("=")) {
            throw new IOException("unexpected reply " + head);
        }
        int len = Integer.parseInt(head.substring(1));
        byte[] b = in.readNBytes(len + 2);
        if (b.length < len) {
            throw new IOException("connection closed");
        }
        return new String(b, 0, len, StandardCharsets.UTF_8);
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.US_ASCII);
    }
}
