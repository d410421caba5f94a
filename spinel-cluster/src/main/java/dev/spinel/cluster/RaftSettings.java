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
    private RaftSettings() {
    }

    /** Sets {@code props} for a server keeping its log under {@code storage} and listening on raftHost:busPort. */
    static void apply(RaftProperties props, Path storage, String raftHost, int busPort) {
        RaftServerConfigKeys.setStorageDir(props, List.of(storage.toFile()));
        GrpcConfigKeys.Server.setHost(props, raftHost); // the announced address only (loopback unless cluster-announce-ip)
        GrpcConfigKeys.Server.setPort(props, busPort);
        RaftServerConfigKeys.Rpc.setTimeoutMin(props, TimeDuration.valueOf(300, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(props, TimeDuration.valueOf(600, TimeUnit.MILLISECONDS));
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
