package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.Topology;
import dev.spinel.server.engine.EngineHooks;
import dev.spinel.server.log.Log;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What Redis's cluster bus does for PUBLISH: a message published on one node reaches the subscribers of
 * every node; and for SPUBLISH on a replica: the message reaches the subscribers of its shard's other nodes (its
 * primary's and the primary's other replicas'; a primary's SPUBLISH reaches its replicas by the replication stream). Each other node gets a link to its client port, which introduces itself as a bus link
 * ({@code CLUSTER MEET <ip> <port> <bus-port> SPINEL-BUS}: the receiving session publishes what arrives
 * without passing it on again), then carries {@code PUBLISH} and {@code SPUBLISH channel message} commands. Messages go out in
 * publish order per node; while a node cannot be reached they are dropped (at most {@link #QUEUE} wait),
 * as Redis's bus drops what it cannot send. Data and topology stay off this path: only pub/sub messages.
 * With {@code masterauth} set (as a cluster with {@code requirepass} needs for its replicas), the link
 * authenticates with it ({@code masteruser} too, when set).
 *
 * <p>Thread-safety: {@link #publish} and {@link #publishShard} are called on the event loops and only offers to a queue; each link
 * has its own daemon thread that connects, writes and reads the replies.
 */
final class PublishBus implements EngineHooks.ClusterPublish {
    /** The extra MEET argument that marks a connection as another node's bus link. */
    static final String LINK = "SPINEL-BUS";
    private static final int QUEUE = 10_000;
    private static final int CONNECT_TIMEOUT_MS = 1000;

    private final Supplier<Topology> topology;
    private final Supplier<String> myId;
    /** The credentials a replica gives its primary (masteruser, masterauth): the nodes' own, as for replication. */
    private final Supplier<String[]> auth;
    private final Map<String, Link> links = new ConcurrentHashMap<>();
    private volatile boolean closed;

    PublishBus(Supplier<Topology> topology, Supplier<String> myId, Supplier<String[]> auth) {
        this.topology = topology;
        this.myId = myId;
        this.auth = auth;
    }

    @Override
    public void publish(byte[] channel, byte[] message) {
        send(PUBLISH, channel, message, null);
    }

    @Override
    public void publishShard(byte[] channel, byte[] message) {
        Topology t = topology.get();
        ClusterNode me = t.node(myId.get());
        if (me != null && !me.isPrimary()) {
            send(SPUBLISH, channel, message, me.primaryId());
        }
    }

    /** Queues the message for every other node, or for those of the shard whose primary is {@code shard}. */
    private void send(byte[] command, byte[] channel, byte[] message, String shard) {
        Topology t = topology.get();
        String me = myId.get();
        byte[] frame = null;
        for (ClusterNode n : t.nodes()) {
            if (n.id().equals(me) || (shard != null && !n.id().equals(shard) && !shard.equals(n.primaryId()))) {
                continue;
            }
            if (frame == null) {
                frame = frame(command, channel, message);
            }
            Link l = links.get(n.id());
            if (l == null && !closed) {
                l = links.computeIfAbsent(n.id(), Link::new);
            }
            if (l != null) {
                l.queue.offer(frame); // full: the node is unreachable, the message is dropped
            }
        }
    }

    void close() {
        closed = true;
        for (Link l : links.values()) {
            l.stop();
        }
        links.clear();
    }

    private static final byte[] PUBLISH = "*3\r\n$7\r\nPUBLISH\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SPUBLISH = "*3\r\n$8\r\nSPUBLISH\r\n".getBytes(StandardCharsets.US_ASCII);

    private static byte[] frame(byte[] command, byte[] channel, byte[] message) {
        ByteArrayOutputStream b = new ByteArrayOutputStream(channel.length + message.length + 48);
        b.writeBytes(command);
        bulk(b, channel);
        bulk(b, message);
        return b.toByteArray();
    }

    private static void bulk(ByteArrayOutputStream b, byte[] v) {
        b.writeBytes(("$" + v.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        b.writeBytes(v);
        b.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    /** One other node's link: its queue and the thread that drains it. */
    private final class Link {
        final String nodeId;
        final BlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(QUEUE);
        private final Thread thread;
        private volatile Socket socket;

        Link(String nodeId) {
            this.nodeId = nodeId;
            this.thread = new Thread(this::run, "cluster-bus-" + nodeId.substring(0, 8));
            thread.setDaemon(true);
            thread.start();
        }

        void stop() {
            thread.interrupt();
            Socket s = socket;
            if (s != null) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }

        private void run() {
            List<byte[]> batch = new ArrayList<>();
            while (!closed) {
                try {
                    byte[] first = queue.poll(1, TimeUnit.SECONDS);
                    Topology t = topology.get();
                    ClusterNode n = t.node(nodeId);
                    if (n == null) {
                        links.remove(nodeId); // forgotten: the next publish makes a new link if it comes back
                        return;
                    }
                    if (first == null) {
                        continue;
                    }
                    batch.add(first);
                    queue.drainTo(batch, 1000);
                    send(n, batch);
                } catch (InterruptedException e) {
                    return;
                } catch (IOException e) {
                    Log.verbose("PUBLISH to node " + nodeId + " dropped: " + e.getMessage());
                    closeSocket();
                } finally {
                    batch.clear();
                }
            }
        }

        private OutputStream out;
        private InputStream in;

        private void send(ClusterNode n, List<byte[]> batch) throws IOException {
            if (socket == null) {
                Socket s = new Socket();
                try {
                    s.connect(new InetSocketAddress(n.host().isEmpty() ? "127.0.0.1" : n.host(), n.port()), CONNECT_TIMEOUT_MS);
                    s.setTcpNoDelay(true);
                    s.setSoTimeout(5000);
                } catch (IOException e) {
                    s.close();
                    throw e;
                }
                socket = s;
                out = s.getOutputStream();
                in = new BufferedInputStream(s.getInputStream());
                String[] credentials = auth.get();
                if (credentials.length > 0) {
                    StringBuilder b = new StringBuilder("*").append(credentials.length + 1).append("\r\n$4\r\nAUTH\r\n");
                    for (String c : credentials) {
                        b.append(bulkText(c));
                    }
                    out.write(b.toString().getBytes(StandardCharsets.UTF_8));
                    skipReplies(1);
                }
                ClusterNode me = topology.get().node(myId.get());
                String host = me == null ? "" : me.host();
                out.write(("*6\r\n$7\r\nCLUSTER\r\n$4\r\nMEET\r\n" + bulkText(host.isEmpty() ? "127.0.0.1" : host)
                        + bulkText(Integer.toString(me == null ? 0 : me.port()))
                        + bulkText(Integer.toString(me == null ? 0 : me.busPort())) + bulkText(LINK))
                        .getBytes(StandardCharsets.UTF_8));
                skipReplies(1);
            }
            for (byte[] f : batch) {
                out.write(f);
            }
            out.flush();
            skipReplies(batch.size());
        }

        private void skipReplies(int n) throws IOException {
            for (int i = 0; i < n; i++) {
                int c;
                while ((c = in.read()) != '\n') {
                    if (c == -1) {
                        throw new IOException("connection closed");
                    }
                }
            }
        }

        private void closeSocket() {
            Socket s = socket;
            socket = null;
            if (s != null) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }
    }

    private static String bulkText(String s) {
        return "$" + s.getBytes(StandardCharsets.UTF_8).length + "\r\n" + s + "\r\n";
    }
}
