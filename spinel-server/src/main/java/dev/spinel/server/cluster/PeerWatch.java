package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.PeerView;
import dev.spinel.cluster.Topology;
import dev.spinel.server.replication.GossipOffset;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * This node's own view of the others' liveness, Redis's PFAIL, and of their replication offsets: each other node's
 * client port is asked its offset ({@code INFO spinel-gossip}, {@link GossipOffset}) every quarter of the node timeout
 * (at most every 2 s; Redis pings each node over its bus at least every half timeout, its offset in every ping, and one
 * node picked at random each second, so each of N others about every N-1 seconds),
 * and a node that has not answered for longer than the node timeout is suspected, shown {@code fail?} in this node's
 * CLUSTER NODES until it answers again or the cluster's verdict (the committed {@code fail}, decided by the Raft
 * leader) replaces it. The Raft heartbeats cannot serve: a follower hears only from the leader, and data (offsets
 * included) never goes through Raft. The last offset a node told is kept, as Redis keeps a node's until its next
 * ping (0 until it has told one); an answer without an offset ({@code -NOAUTH}, {@code -NOPERM}) proves it alive
 * and leaves its offset as it was.
 *
 * <p>Thread-safety: {@link #watch} is called by the cluster cron thread; each watched node has one virtual thread
 * that asks it and publishes the time of its last answer and its offset through volatile fields, read by
 * {@link #suspected} and {@link #offset} from any thread.
 */
final class PeerWatch implements PeerView {
    private final Supplier<Topology> topology;
    /** masteruser/masterauth, as the PUBLISH links: with requirepass each question would otherwise count a NOAUTH error. */
    private final Supplier<String[]> auth;
    private final Map<String, Probe> probes = new ConcurrentHashMap<>();
    private volatile long timeoutMs = Long.MAX_VALUE;
    private volatile boolean closed;

    PeerWatch(Supplier<Topology> topology, Supplier<String[]> auth) {
        this.topology = topology;
        this.auth = auth;
    }

    /** Watches every node of {@code t} but {@code myId} (forgotten ones no longer) with {@code timeoutMs}. */
    void watch(Topology t, String myId, long timeoutMs) {
        this.timeoutMs = timeoutMs;
        if (closed) {
            return;
        }
        for (ClusterNode n : t.nodes()) {
            if (!n.id().equals(myId) && !probes.containsKey(n.id())) {
                probes.put(n.id(), new Probe(n.id()));
            }
        }
        probes.values().removeIf(p -> {
            boolean gone = t.node(p.nodeId) == null || p.nodeId.equals(myId);
            if (gone) {
                p.thread.interrupt();
            }
            return gone;
        });
    }

    @Override
    public boolean suspected(String id) {
        Probe p = probes.get(id);
        return p != null && nowMs() - p.lastAnswerMs > timeoutMs;
    }

    @Override
    public long pingSent(String id) {
        Probe p = probes.get(id);
        return p == null ? 0 : p.askedAtWallMs;
    }

    @Override
    public long pongReceived(String id) {
        Probe p = probes.get(id);
        return p == null ? 0 : p.answeredAtWallMs;
    }

    /** The replication offset node {@code id} last told this one (0 before it told any). */
    long offset(String id) {
        Probe p = probes.get(id);
        return p == null ? 0 : p.offset;
    }

    void close() {
        closed = true;
        probes.values().forEach(p -> p.thread.interrupt());
        probes.clear();
    }

    private static long nowMs() {
        return System.nanoTime() / 1_000_000;
    }

    /** One watched node: a connection kept open, a question, its answer's time and offset, a pause, again. */
    private final class Probe {
        final String nodeId;
        /** When the node last answered (any reply: -NOAUTH too), or when the watch began. */
        volatile long lastAnswerMs = nowMs();
        /** The replication offset the node told last. */
        volatile long offset;
        /** CLUSTER NODES' ping-sent and pong-recv (Unix ms): the unanswered question's time (0: none), the last answer's. */
        volatile long askedAtWallMs;
        volatile long answeredAtWallMs;
        final Thread thread;

        Probe(String nodeId) {
            this.nodeId = nodeId;
            this.thread = Thread.ofVirtual().name("cluster-peer-watch-" + nodeId.substring(0, Math.min(8, nodeId.length())))
                    .start(this::run);
        }

        private void run() {
            PeerCall call = null;
            while (!closed && !Thread.currentThread().isInterrupted()) {
                long interval = Math.max(50, Math.min(timeoutMs / 4, 2000));
                try {
                    if (call == null) {
                        ClusterNode n = topology.get().node(nodeId);
                        if (n == null) {
                            return;
                        }
                        // a stopped node's kernel still accepts and holds the question: the read gives up after the
                        // timeout and the next round connects again
                        call = new PeerCall(n.host(), n.port(), (int) Math.min(Integer.MAX_VALUE, 2 * timeoutMs));
                        String[] credentials = auth.get();
                        if (credentials.length > 0) {
                            String[] cmd = new String[credentials.length + 1];
                            cmd[0] = "AUTH";
                            System.arraycopy(credentials, 0, cmd, 1, credentials.length);
                            call.call(cmd); // any answer: a refused AUTH still leaves the question its -NOAUTH reply
                        }
                    }
                    if (askedAtWallMs == 0) {
                        askedAtWallMs = System.currentTimeMillis(); // Redis keeps the first unanswered ping's time
                    }
                    offset(call.call("INFO", GossipOffset.SECTION));
                    lastAnswerMs = nowMs();
                    answeredAtWallMs = System.currentTimeMillis();
                    askedAtWallMs = 0;
                } catch (IOException | RuntimeException e) {
                    call = close(call);
                }
                try {
                    Thread.sleep(interval);
                } catch (InterruptedException e) {
                    break;
                }
            }
            close(call);
        }

        /** Keeps the offset an answer tells (any answer proves the node alive; see the class comment). */
        private void offset(String answer) {
            if (answer == null) {
                return;
            }
            String v = PeerCall.infoField(answer, GossipOffset.FIELD);
            if (v != null) {
                try {
                    offset = Long.parseLong(v);
                } catch (NumberFormatException ignored) {
                    // not a number: not an offset
                }
            }
        }

        private static PeerCall close(PeerCall call) {
            if (call != null) {
                try {
                    call.close();
                } catch (IOException ignored) {
                    // gone anyway
                }
            }
            return null;
        }
    }
}
