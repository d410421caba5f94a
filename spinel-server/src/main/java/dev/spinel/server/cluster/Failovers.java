package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.ClusterTopology;
import dev.spinel.cluster.Topology;
import dev.spinel.cluster.TopologyChange;
import dev.spinel.cluster.TopologyException;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.log.Log;
import dev.spinel.server.replication.Replication;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;

/**
 * Failovers, decided through Raft instead of Redis's failure reports and replica elections:
 * <ul>
 *   <li>automatic: the Raft leader sees which members stopped answering it; a primary serving slots that
 *   has been silent longer than {@code cluster-node-timeout} is replaced by its live replica with the
 *   highest replication offset (asked over the replicas' client ports) whose data is not too old
 *   ({@link ReplicaValidity}, Redis's {@code cluster-replica-validity-factor}) and that is not set not to take over
 *   ({@code cluster-replica-no-failover}), committed as one
 *   {@link TopologyChange.Failover} (a new config epoch), while a majority of the primaries serving slots is
 *   reachable (Redis's vote, {@link PrimaryQuorum}). The commit needs a Raft majority too, so a leader cut
 *   off from the others cannot promote anyone;</li>
 *   <li>CLUSTER FAILOVER on a replica: by default as Redis's manual failover (the primary's writes paused,
 *   the replica waits until it has processed the primary's whole stream, then takes over); FORCE and
 *   TAKEOVER commit the takeover at once (TAKEOVER, which in Redis needs no majority, still needs one
 *   here: the Raft log is the only way a change is made).</li>
 * </ul>
 *
 * <p>Thread-safety: {@link #detect} runs on the cluster cron thread; failovers (network calls, commits) run on
 * the given single worker thread, health verdicts on a virtual thread each (their PING of a stopped node must not
 * delay a failover); {@link #inFlight} keeps one failover per primary, and one health verdict per node, at a time.
 */
final class Failovers {
    /** Redis's CLUSTER_MF_TIMEOUT: how long a manual failover waits for the replica to catch up. */
    private static final long MANUAL_TIMEOUT_MS = 5000;
    private static final int PROBE_TIMEOUT_MS = 500;

    private final Supplier<ClusterTopology> topology;
    private final Replication replication;
    private final ServerConfig config;
    private final ExecutorService worker;
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    /** When each reason a failover cannot happen was last logged: the leader retries every tick, Redis relogs every 10 s. */
    private final Map<String, Long> logged = new ConcurrentHashMap<>();

    Failovers(Supplier<ClusterTopology> topology, Replication replication, ServerConfig config, ExecutorService worker) {
        this.topology = topology;
        this.replication = replication;
        this.config = config;
        this.worker = worker;
    }

    /** On the Raft leader: starts the failover of every primary silent for more than {@code nodeTimeoutMs}. */
    void detect(long nodeTimeoutMs) {
        ClusterTopology ct = topology.get();
        Map<String, Long> silence = ct.peerSilenceMs();
        if (silence.isEmpty()) {
            return; // not the leader
        }
        Topology t = ct.current();
        judgeHealth(ct, t, silence, nodeTimeoutMs);
        for (ClusterNode p : t.nodes()) {
            Long quiet = silence.get(p.id());
            if (!p.isPrimary() || quiet == null || quiet <= nodeTimeoutMs || t.slotCount(p.id()) == 0
                    || t.replicasOf(p.id()).isEmpty() || !inFlight.add(p.id())) {
                continue;
            }
            Log.notice("Primary " + p.id() + " (" + p.host() + ":" + p.port() + ") silent for " + quiet
                    + " ms: failing it over");
            worker.execute(() -> {
                try {
                    promoteBestReplica(ct, p, nodeTimeoutMs);
                } finally {
                    inFlight.remove(p.id());
                }
            });
        }
    }

    /**
     * On the Raft leader: flags failed (Redis's FAIL, shown by CLUSTER NODES on every node) each member silent for
     * more than the node timeout that does not answer a PING on its client port either (on a loaded machine a Raft
     * heartbeat may be late while the node is up), and clears the flag of one heard from again; the leader itself answers (a node
     * flagged while away may come back as the leader). Judged beside a failover of the same node, not before it
     * (Redis flags a primary FAIL before its replicas elect one; here the two are separate commits).
     */
    private void judgeHealth(ClusterTopology ct, Topology t, Map<String, Long> silence, long nodeTimeoutMs) {
        for (ClusterNode n : t.nodes()) {
            Long quiet = n.id().equals(ct.myId()) ? Long.valueOf(0) : silence.get(n.id());
            if (quiet == null) {
                continue; // not a Raft member (yet)
            }
            boolean down = quiet > nodeTimeoutMs;
            String key = "health " + n.id();
            if (down == t.isFailed(n.id()) || !inFlight.add(key)) {
                continue;
            }
            // not on the worker: the PING of a stopped node waits out the node timeout, and a failover queued
            // behind it would come that much later (ClusterFailoverTest's SIGSTOP case took 5.1 s instead of ~3)
            Thread.ofVirtual().name("cluster-health").start(() -> {
                try {
                    if (down && answers(n, nodeTimeoutMs)) {
                        return; // its Raft thread is late, the node is not down (Redis too wants a second report)
                    }
                    ct.commit(new TopologyChange.Health(n.id(), down));
                    Log.notice(down ? "Marking node " + n.id() + " as failing (silent for " + quiet + " ms)."
                            : "Clear FAIL state for node " + n.id() + ": it is reachable again.");
                } catch (TopologyException e) {
                    Log.warning("The health of node " + n.id() + " not committed: " + e.getMessage());
                } finally {
                    inFlight.remove(key);
                }
            });
        }
    }

    /** Whether the node answers PING (any reply: -NOAUTH too) on its client port within {@code timeoutMs}. */
    static boolean answers(ClusterNode n, long timeoutMs) {
        try (PeerCall c = new PeerCall(n.host().isEmpty() ? "127.0.0.1" : n.host(), n.port(), (int) timeoutMs)) {
            c.call("PING");
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private void promoteBestReplica(ClusterTopology ct, ClusterNode failed, long nodeTimeoutMs) {
        Map<String, Long> silence = ct.peerSilenceMs();
        PrimaryQuorum quorum = PrimaryQuorum.count(ct, failed, silence, nodeTimeoutMs, PROBE_TIMEOUT_MS);
        if (!quorum.reached()) {
            logRarely("Currently unable to fail over " + failed.id() + ": " + quorum + " (retried while it is silent)");
            return;
        }
        ClusterNode best = null;
        long bestOffset = -1;
        for (ClusterNode r : ct.current().replicasOf(failed.id())) {
            long offset;
            if (r.noFailover()) { // the committed flag (CLUSTER NODES' nofailover); the checks below cover a newer setting
                logRarely("Replica " + r.id() + " cannot take over: it is set not to (cluster-replica-no-failover)");
                continue;
            }
            if (r.id().equals(ct.myId())) {
                if (config.clusterReplicaNoFailover.value()) {
                    logRarely("Failover of " + failed.id() + ": this replica is set not to take over (cluster-replica-no-failover)");
                    continue;
                }
                StringBuilder info = new StringBuilder();
                replication.appendInfo(info);
                if (ReplicaValidity.tooOld(ReplicaValidity.dataAgeMs(info.toString()), config.clusterNodeTimeout.value(),
                        config.clusterReplicaValidityFactor.value(), config.replPingReplicaPeriod.value())) {
                    logRarely("Failover of " + failed.id() + ": this replica's data is too old (cluster-replica-validity-factor)");
                    continue;
                }
                offset = replication.offset();
            } else {
                Long quiet = silence.get(r.id());
                if (quiet == null || quiet > nodeTimeoutMs) {
                    continue; // down too
                }
                try {
                    offset = offsetOf(r);
                } catch (IOException | RuntimeException e) {
                    Log.warning("Failover of " + failed.id() + ": replica " + r.id() + " did not answer: " + e.getMessage());
                    continue;
                }
            }
            if (offset > bestOffset) {
                best = r;
                bestOffset = offset;
            }
        }
        if (best == null) {
            logRarely("Failover of " + failed.id() + ": no replica can take over");
            return;
        }
        try {
            long start = System.nanoTime();
            ct.commit(new TopologyChange.Failover(best.id(), failed.id()));
            Log.notice("Failover: replica " + best.id() + " (offset " + bestOffset + ") replaces primary " + failed.id()
                    + ", config epoch " + ct.current().currentEpoch() + " (committed in "
                    + (System.nanoTime() - start) / 1_000_000 + " ms)");
        } catch (TopologyException e) {
            Log.warning("Failover of " + failed.id() + " not committed: " + e.getMessage());
        }
    }

    /**
     * The replica's replication offset, or -1 when it may not take over: its data is too old ({@link ReplicaValidity})
     * or it is set not to ({@code cluster-replica-no-failover}).
     */
    private long offsetOf(ClusterNode n) throws IOException {
        try (PeerCall c = new PeerCall(n.host(), n.port(), PROBE_TIMEOUT_MS)) {
            if (c.config("cluster-replica-no-failover").equals("yes")) {
                logRarely("Replica " + n.id() + " cannot take over: it is set not to (cluster-replica-no-failover)");
                return -1;
            }
            String info = c.bulk("INFO", "replication");
            String v = PeerCall.infoField(info, "master_repl_offset");
            if (v == null) {
                throw new IOException("no master_repl_offset in its INFO");
            }
            if (ReplicaValidity.tooOld(ReplicaValidity.dataAgeMs(info), Long.parseLong(c.config("cluster-node-timeout")),
                    Long.parseLong(c.config("cluster-replica-validity-factor")),
                    Long.parseLong(c.config("repl-ping-replica-period")))) {
                logRarely("Replica " + n.id() + " cannot take over: its data is too old (cluster-replica-validity-factor)");
                return -1;
            }
            return Long.parseLong(v);
        }
    }

    private void logRarely(String message) {
        long now = System.currentTimeMillis();
        Long last = logged.get(message);
        if (last == null || now - last >= 10_000) {
            logged.put(message, now);
            Log.warning(message);
        }
    }

    /**
     * CLUSTER FAILOVER on this replica (its checks made): with {@code force} the takeover is committed at
     * once; otherwise as Redis's manual failover, the primary's client writes are paused while this replica
     * catches up with its offset, and resumed after the takeover (they are then redirected).
     */
    void manual(ClusterNode primary, boolean force) {
        worker.execute(() -> {
            ClusterTopology ct = topology.get();
            if (force) {
                commitTakeover(ct, primary);
                return;
            }
            try (PeerCall c = new PeerCall(primary.host(), primary.port(), PROBE_TIMEOUT_MS)) {
                c.call("CLIENT", "PAUSE", Long.toString(2 * MANUAL_TIMEOUT_MS), "WRITE");
                try {
                    String v = PeerCall.infoField(c.bulk("INFO", "replication"), "master_repl_offset");
                    long target = Long.parseLong(v);
                    long deadline = System.currentTimeMillis() + MANUAL_TIMEOUT_MS;
                    while (replication.offset() < target) {
                        if (System.currentTimeMillis() > deadline) {
                            Log.warning("Manual failover timed out.");
                            return;
                        }
                        Thread.sleep(5);
                    }
                    Log.notice("All primary replication stream processed, manual failover can start.");
                    if (commitTakeover(ct, primary)) {
                        // Its paused writes must find it a replica (then redirected), not a primary still.
                        long until = System.currentTimeMillis() + MANUAL_TIMEOUT_MS;
                        while (!"slave".equals(PeerCall.infoField(c.bulk("INFO", "replication"), "role"))
                                && System.currentTimeMillis() < until) {
                            Thread.sleep(5);
                        }
                    }
                } finally {
                    c.call("CLIENT", "UNPAUSE");
                }
            } catch (IOException | RuntimeException e) {
                Log.warning("Manual failover failed: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    private static boolean commitTakeover(ClusterTopology ct, ClusterNode primary) {
        try {
            ct.commit(new TopologyChange.Failover(ct.myId(), primary.id()));
            Log.notice("Failover: this replica replaces primary " + primary.id() + ", config epoch "
                    + ct.current().currentEpoch());
            return true;
        } catch (TopologyException e) {
            Log.warning("Failover not committed: " + e.getMessage());
            return false;
        }
    }
}
