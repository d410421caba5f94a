package dev.spinel.cluster;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.ExitUtils;
import org.apache.ratis.util.TimeDuration;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * The topology as a replicated state machine on Apache Ratis: every node runs a Raft server on its bus
 * port (peer id = node id); a node starts alone in a group of its own, and CLUSTER MEET brings the met
 * node into the meeting node's group (its node record committed first, then the Raft group added on it
 * and the configuration changed to include it). A node that finds itself in the topology of a group that
 * comes before its active one ({@link GroupOrder}) makes it its active one and drops those it was in before;
 * {@link #listenMoves} listeners are told of the group it left. Every change is a log entry, so all nodes
 * apply the same changes in the same order; data never goes through Raft.
 *
 * <p>Thread-safety: {@link #commit} and {@link #join} are serialized by this object's monitor; the state
 * machines apply on Ratis's threads and publish through a volatile field; listeners are called on them.
 */
public final class RaftTopology implements ClusterTopology {
    private static final long TIMEOUT_MS = 10_000;
    /** How long a group this node was moved out of is kept (see {@link #applied}). */
    private static final long DROP_AFTER_S = 60;

    private final String myId;
    private final RaftPeer me;
    private final RaftGroupId ownGroup;
    private final RaftProperties props;
    private final RaftServer server;
    private final Map<RaftGroupId, TopologyStateMachine> machines = new ConcurrentHashMap<>();
    private final List<Consumer<Topology>> listeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<Topology>> moveListeners = new CopyOnWriteArrayList<>();
    /** How this node enters groups and leaves those it was moved out of. */
    private final RaftGroups groups;
    /** Serializes the choice of the active group (applies of different groups run on different threads). */
    private final Object adoption = new Object();
    private final ExecutorService housekeeping = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "cluster-raft-housekeeping");
        t.setDaemon(true);
        return t;
    });
    private volatile RaftGroupId active;
    private volatile Topology current;
    /** The log index of {@link #current}'s change (see {@link #currentIndex}). */
    private volatile long currentIndex;
    private final PeerApplied peerApplied;
    private final ReplayWatch replay = new ReplayWatch();
    private volatile RaftClient client;
    private RaftGroupId clientGroup;
    /** See {@link #joining}; guarded by this object's monitor. */
    private boolean joining;
    private RaftPeerId clientLeader;
    private boolean clientFailed; // a failed async request closes the client's ordered window for good (AlreadyClosed)
    /** Clients give up after about {@link #TIMEOUT_MS} (Ratis's default retries for ever: a dead peer would hang MEET). */
    private static final RetryPolicy RETRY = RetryPolicies.retryUpToMaximumCountWithFixedSleep((int) (TIMEOUT_MS / 100), TimeDuration.valueOf(100, TimeUnit.MILLISECONDS));

    static {
        // Ratis ends the JVM (System.exit) on what it deems fatal, e.g. a log write failing while a server closes;
        // here the JVM is the whole data server: the error is thrown on Ratis's thread instead.
        ExitUtils.disableSystemExit();
    }

    private RaftTopology(String myId, String raftHost, int busPort, Path storage, Topology seed, long rpcTimeoutMinMs)
            throws IOException {
        this.myId = myId;
        this.me = RaftPeer.newBuilder().setId(RaftPeerId.valueOf(myId)).setAddress(raftHost + ":" + busPort).build();
        boolean fresh = ReplayWatch.fresh(storage);
        this.ownGroup = OwnGroup.of(storage, myId, fresh);
        this.current = seed;
        this.props = new RaftProperties();
        this.groups = new RaftGroups(props, RETRY, me);
        this.peerApplied = new PeerApplied(props);
        RaftSettings.apply(props, storage, raftHost, busPort, rpcTimeoutMinMs);
        RaftServer.Builder b = RaftServer.newBuilder().setServerId(me.getId()).setProperties(props)
                .setStateMachineRegistry(gid -> machines.computeIfAbsent(gid,
                        g -> new TopologyStateMachine((sm, t) -> applied(g, sm.applyingIndex(), t))));
        if (fresh) {
            b.setGroup(RaftGroup.valueOf(ownGroup, me)).setOption(RaftStorage.StartupOption.FORMAT);
        } else {
            b.setOption(RaftStorage.StartupOption.RECOVER);
        }
        this.server = b.build();
        if (fresh) {
            active = ownGroup;
        }
    }

    /**
     * Starts the Raft server for node {@code self} (a new node when {@code storage} is empty: its own
     * group is formed and its record committed; else its groups are recovered from {@code storage}).
     * {@code seed} is the topology shown until the recovered log is applied ({@code nodes.conf}'s). Raft's election
     * timeout is {@code rpcTimeoutMinMs} to twice that, its heartbeats every half of it ({@link RaftSettings}).
     */
    public static RaftTopology start(ClusterNode self, String raftHost, Path storage, Topology seed, long rpcTimeoutMinMs)
            throws IOException, TopologyException {
        Files.createDirectories(storage);
        boolean fresh = ReplayWatch.fresh(storage);
        RaftTopology t = new RaftTopology(self.id(), raftHost, self.busPort(), storage, seed, rpcTimeoutMinMs);
        try {
            t.server.start();
            PauseMonitorOff.stop(t.server);
        } catch (IOException | RuntimeException e) {
            t.close(); // e.g. the bus port taken: the caller may try again
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            throw new IOException("the Raft server did not start on port " + self.busPort() + ": " + e.getMessage()
                    + (root == e ? "" : " (" + root + ")"), e);
        }
        if (!fresh) {
            t.replay.recovered(t.server);
        }
        if (fresh) {
            try {
                t.commit(new TopologyChange.AddNode(self, seedSlots(seed, self.id())));
                if (seed.currentEpoch() > self.configEpoch()) { // AddNode carries the node's own epoch
                    t.commit(new TopologyChange.CurrentEpoch(self.id(), seed.currentEpoch()));
                }
            } catch (TopologyException | RuntimeException e) {
                t.close(); // else its port stays bound and every retry fails with "Address already in use"
                throw e;
            }
        }
        return t;
    }

    private static int[] seedSlots(Topology seed, String id) {
        return seed.slotRanges(id).stream().flatMapToInt(r -> IntStream.rangeClosed(r[0], r[1])).toArray();
    }

    /** A change applied by the state machine of {@code gid}: published if it is the active group's. */
    private void applied(RaftGroupId gid, long index, Topology t) {
        Topology left;
        synchronized (adoption) {
            RaftGroupId a = active;
            if (gid.equals(a)) {
                publish(t, index);
                return;
            }
            if (a == null && gid.equals(ownGroup) && RaftGroups.hasOtherThan(server, ownGroup)) {
                return; // recovering: its own first group, which it was moved out of (kept 60 s), is not adopted
            }
            if (t.node(myId) == null || (a != null && GroupOrder.of(t, gid.toString()).compareTo(GroupOrder.of(current, a.toString())) >= 0)) {
                return; // not (or not yet) a member, or a group that comes after this node's one
            }
            active = gid; // brought into another group (MEET, or its group merged into another)
            left = a == null ? null : current;
            publish(t, index);
            // The groups it was in are dropped later: while merges go on, one may bring it back, and Ratis cannot
            // add a group again on a server that removed it a moment ago (the division stays CLOSED).
            CompletableFuture.runAsync(() -> groups.drop(server, g -> !g.equals(active) && machines.containsKey(g)
                    && machines.get(g).topology().node(myId) != null, machines::remove),
                    CompletableFuture.delayedExecutor(DROP_AFTER_S, TimeUnit.SECONDS, housekeeping));
        }
        if (left != null) {
            for (Consumer<Topology> l : moveListeners) {
                l.accept(left);
            }
        }
    }

    private void publish(Topology t, long index) {
        currentIndex = index;
        current = t;
        for (Consumer<Topology> l : listeners) {
            l.accept(t);
        }
    }

    @Override
    public String myId() {
        return myId;
    }

    @Override
    public Topology current() {
        return current;
    }

    @Override
    public long currentIndex() {
        return currentIndex;
    }

    @Override
    public boolean awaitApplied(String nodeId, long index, long timeoutMs) throws InterruptedException {
        RaftGroupId a = active;
        if (a == null) {
            return false;
        }
        try {
            return peerApplied.await(server.getDivision(a).getGroup(), nodeId, index, timeoutMs);
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public boolean replaying() {
        RaftGroupId a = active;
        return replay.replaying(a, a == null ? null : machines.get(a));
    }

    @Override
    public void listen(Consumer<Topology> listener) {
        listeners.add(listener);
    }

    @Override
    public void listenMoves(Consumer<Topology> listener) {
        moveListeners.add(listener);
    }

    @Override
    public boolean voting() {
        return RaftGroups.voting(server, active, me.getId());
    }

    @Override
    public String groupId() {
        RaftGroupId a = active;
        return a == null ? "" : a.toString();
    }

    /** The shortest election timeout of this node's Raft server (its heartbeats: every half), read off a group of it. */
    public long rpcTimeoutMinMs() throws IOException {
        return server.getDivision(server.getGroupIds().iterator().next()).properties().minRpcTimeoutMs();
    }

    /**
     * The client for the active group, rebuilt when the group or its leader changed: told the leader this
     * server knows of, so that a commit after a failure does not first wait on a dead peer (a new client
     * starts with the group's first peer, and tries the next one only after a request timeout). Used only
     * by this object's synchronized methods, so the client it replaces is no longer in use.
     */
    private synchronized RaftClient client() throws IOException {
        RaftGroupId a = active;
        if (a == null) {
            throw new IOException("the cluster topology is still being recovered");
        }
        RaftServer.Division d = server.getDivision(a);
        RaftPeerId leader = d.getInfo().getLeaderId();
        if (client == null || clientFailed || !a.equals(clientGroup) || (leader != null && !leader.equals(clientLeader))) {
            RaftClient stale = client;
            if (stale != null) {
                // In the background: closing waits on its channels, one of which may be to a peer that hangs.
                housekeeping.execute(() -> {
                    try {
                        stale.close();
                    } catch (IOException e) {
                        System.getLogger(RaftTopology.class.getName()).log(System.Logger.Level.DEBUG, "closing a Raft client: " + e);
                    }
                });
            }
            client = newClient(d);
            clientFailed = false;
            clientGroup = a;
            clientLeader = leader;
        }
        return client;
    }

    /** A client for the group of {@code d}, told the leader {@code d} knows of (if any). */
    private RaftClient newClient(RaftServer.Division d) {
        RaftClient.Builder b = RaftClient.newBuilder().setProperties(props).setRetryPolicy(RETRY).setRaftGroup(d.getGroup());
        RaftPeerId leader = d.getInfo().getLeaderId();
        if (leader != null) {
            b.setLeaderId(leader);
        }
        return b.build();
    }

    @Override
    public synchronized void joining(boolean on) {
        joining = on;
        notifyAll();
    }

    @Override
    public synchronized Topology commit(TopologyChange change) throws TopologyException {
        // Just restarted: the recovered log names the active group once replayed; a change waits for that.
        long recovering = System.currentTimeMillis() + TIMEOUT_MS;
        while (active == null && System.currentTimeMillis() < recovering) {
            if (!pause(10)) {
                throw new TopologyException("ERR interrupted");
            }
        }
        // Being brought into another group: the change belongs there (the monitor is released while waiting).
        long joined = System.currentTimeMillis() + 2 * TIMEOUT_MS;
        while (joining && System.currentTimeMillis() < joined) {
            try {
                wait(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TopologyException("ERR interrupted");
            }
        }
        RaftGroupId group = active;
        Topology now = current;
        if (group != null && !joining && change.inEffect(now)) {
            return now; // answered from this node's applied topology, as a read is
        }
        RaftClientReply reply = null;
        // GroupMismatchException: the leader this node knew left and another server (its CLUSTER RESET HARD) answers on
        // its address; no member got the change, asked again once this node knows the new leader (legacy suite's init)
        for (long until = System.currentTimeMillis() + TIMEOUT_MS; reply == null; ) {
            try {
                reply = client().async().send(Message.valueOf(change.encode())).get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                clientFailed = true;
                if (!(e.getCause() instanceof GroupMismatchException) || System.currentTimeMillis() > until || !pause(100)) {
                    throw new TopologyException("ERR the topology change could not be committed: " + e);
                }
            }
        }
        if (!reply.isSuccess()) {
            throw new TopologyException("ERR the topology change could not be committed: " + reply.getException());
        }
        String text = reply.getMessage().getContent().toString(StandardCharsets.UTF_8);
        awaitApplied(group, reply.getLogIndex());
        if (!text.equals("OK")) {
            throw new TopologyException(text);
        }
        if (change instanceof TopologyChange.Forget f) {
            leaveGroup(f.nodeId());
        }
        return current;
    }

    /** Sleeps {@code ms}; false when interrupted (the interrupt kept). */
    private static boolean pause(long ms) {
        try {
            Thread.sleep(ms);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** How many topology changes (log entries, refused ones too) this node applied in its active group. */
    long changesApplied() {
        RaftGroupId a = active;
        TopologyStateMachine sm = a == null ? null : machines.get(a);
        return sm == null ? -1 : sm.changesApplied();
    }

    /** Waits until this node's state machine applied the entry at {@code index} (the leader may be another). */
    private void awaitApplied(RaftGroupId group, long index) throws TopologyException {
        TopologyStateMachine sm = machines.get(group);
        if (sm == null) {
            return;
        }
        try {
            if (!sm.awaitApplied(index, TIMEOUT_MS)) {
                throw new TopologyException("ERR the topology change was committed but not applied here in time");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TopologyException("ERR interrupted");
        }
    }

    @Override
    public synchronized void join(ClusterNode other, int[] slots) throws TopologyException {
        RaftGroupId into = active;
        commit(new TopologyChange.AddNode(other, slots));
        if (into == null || !into.equals(active)) {
            // moved into another group meanwhile (its own merge into another): the record went to the group it left
            throw new TopologyException("ERR this node moved to another Raft group while bringing a node in");
        }
        try {
            RaftPeer peer = RaftPeer.newBuilder().setId(RaftPeerId.valueOf(other.id()))
                    .setAddress((other.host().isEmpty() ? "127.0.0.1" : other.host()) + ":" + other.busPort()).build();
            RaftServer.Division d = server.getDivision(into);
            groups.add(d.getGroup(), peer, d.getInfo().getLeaderId());
        } catch (IOException | TopologyException e) {
            try { // as a failed handshake, the node is dropped (unless another member brought it in meanwhile)
                if (!RaftGroups.has(server.getDivision(into).getGroup(), other.id())) {
                    commit(new TopologyChange.Forget(myId, other.id()));
                }
            } catch (IOException | TopologyException rollback) {
                e.addSuppressed(rollback);
            }
            throw e instanceof TopologyException t ? t
                    : new TopologyException("ERR the new node could not join the Raft group: " + e);
        }
    }

    /** A forgotten node stops voting: the Raft configuration drops it too. */
    private void leaveGroup(String nodeId) throws TopologyException {
        try {
            RaftGroups.remove(server.getDivision(active).getGroup(), nodeId, client());
        } catch (IOException e) {
            throw new TopologyException("ERR the node was forgotten but is still in the Raft group: " + e);
        }
    }

    @Override
    public synchronized void leave() throws TopologyException {
        if (current.nodes().size() > 1) {
            commit(new TopologyChange.Leave(myId));
            leaveGroup(myId);
        }
    }

    @Override
    public void reset(String newId) throws TopologyException {
        if (newId != null) {
            throw new TopologyException("ERR CLUSTER RESET HARD is not supported yet: the node id is the Raft peer id");
        }
        commit(new TopologyChange.Reset(myId));
    }

    @Override
    public void catchUp() throws TopologyException {
        RaftGroupId group = active;
        RaftClientReply reply;
        // A client of its own: the shared one belongs to the synchronized methods (they may replace and close it).
        try (RaftClient c = newClient(server.getDivision(group))) {
            // to this node itself: it asks the leader for the read index and answers once it has applied up to it. Bounded:
            // io()'s retries of 3 s requests kept every node of a cluster fenced for minutes after a stall (load ~110);
            // a failed catch-up is asked again at the next tick.
            reply = c.async().sendReadOnly(Message.valueOf("applied"), me.getId()).get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new TopologyException("ERR the cluster leader could not be asked: " + e);
        }
        if (!reply.isSuccess()) {
            throw new TopologyException("ERR the cluster leader could not be asked: " + reply.getException());
        }
        awaitApplied(group, Long.parseLong(reply.getMessage().getContent().toString(StandardCharsets.UTF_8)));
    }

    @Override
    public long majorityContactAgeMs() {
        return RaftContact.majorityContactAgeMs(server, active);
    }

    @Override
    public Map<String, Long> peerSilenceMs() {
        return RaftContact.peerSilenceMs(server, active);
    }

    @Override
    public void close() {
        housekeeping.shutdownNow();
        peerApplied.close();
        try {
            RaftClient c = client;
            if (c != null) {
                c.close();
            }
            server.close();
        } catch (IOException e) {
            System.getLogger(RaftTopology.class.getName()).log(System.Logger.Level.WARNING, "closing Raft: " + e);
        }
    }
}
