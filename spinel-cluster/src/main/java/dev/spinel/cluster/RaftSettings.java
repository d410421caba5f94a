package dev.spinel.cluster;

import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.TimeDuration;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Ratis settings of a node's Raft server: where its log is kept, the address it listens on, and the timings
 * this topology needs (each with its reason).
 *
 * <p>Stateless.
 */
final class RaftSettings {
    /** The shortest election timeout of the first election after a start (see {@link #apply}). */
    private static final long FIRST_ELECTION_MS = 300;

    private RaftSettings() {
    }

    /**
     * Sets {@code props} for a server keeping its log under {@code storage} and listening on raftHost:busPort, with
     * an election timeout between {@code rpcTimeoutMinMs} and twice that. A leader sends its heartbeats every half
     * of {@code rpcTimeoutMinMs} (Ratis's rule): the caller scales it with the failure detection it needs, since on a
     * small machine the heartbeats' wake-ups are most of what an idle cluster costs.
     */
    static void apply(RaftProperties props, Path storage, String raftHost, int busPort, long rpcTimeoutMinMs) {
        RaftServerConfigKeys.setStorageDir(props, List.of(storage.toFile()));
        GrpcConfigKeys.Server.setHost(props, raftHost); // the announced address only (loopback unless cluster-announce-ip)
        GrpcConfigKeys.Server.setPort(props, busPort);
        RaftServerConfigKeys.Rpc.setTimeoutMin(props, TimeDuration.valueOf(rpcTimeoutMinMs, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(props, TimeDuration.valueOf(2 * rpcTimeoutMinMs, TimeUnit.MILLISECONDS));
        // A new node's group of one elects it only after an election timeout, and its start waits for that (its record
        // is committed): the first election after a start keeps the fastest pace, whatever the heartbeats' pace.
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(props, TimeDuration.valueOf(FIRST_ELECTION_MS, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(props, TimeDuration.valueOf(2 * FIRST_ELECTION_MS, TimeUnit.MILLISECONDS));
        // The leader's log appender waits this long between two appendEntries to batch them (10 ms by default),
        // and a follower learns an entry is committed only from the next one: a SETSLOT on a follower waited for
        // both. Topology changes come one at a time (a reshard's SETSLOTs), there is nothing to batch.
        RaftServerConfigKeys.Log.Appender.setWaitTimeMin(props, TimeDuration.ZERO);
        // catchUp's query is a read index (Raft 6.4): the leader confirms it still leads before answering. By default a
        // leader answers from its own state at once, and an old leader just resumed (SIGSTOP, a pause) still believes it
        // leads: its fenced node would have served again on the stale topology (its failover not applied yet).
        RaftServerConfigKeys.Read.setOption(props, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    }
}
