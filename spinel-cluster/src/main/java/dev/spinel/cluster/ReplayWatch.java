package dev.spinel.cluster;

import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.statemachine.StateMachine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * A restarted node's replay of its recovered Raft log. There are no snapshots, so the state machine applies every
 * change again from the first, and the topologies on the way are old ones (the node a primary again before the
 * REPLICATE that made it a replica): the server must not act on them (promote, resync), only on the state the node
 * had when it stopped (nodes.conf's) and on what follows the replay. The replay ends at the commit index each
 * recovered group's log had at start, or after {@link #LIMIT_NS} at the latest (a group this node no longer
 * applies in, a commit index never reached by a transaction).
 *
 * <p>Thread-safety: {@link #recovered} is called once, by the starting thread, before any {@link #replaying};
 * {@link #replaying} is safe from any thread.
 */
final class ReplayWatch {
    private static final long LIMIT_NS = 30_000_000_000L;
    private final Map<RaftGroupId, Long> upTo = new ConcurrentHashMap<>();
    private final long started = System.nanoTime();

    /** Whether {@code storage} holds no Raft log (a new node, which replays nothing). */
    static boolean fresh(Path storage) throws IOException {
        if (!Files.isDirectory(storage)) {
            return true;
        }
        try (Stream<Path> s = Files.list(storage)) {
            return s.findAny().isEmpty();
        }
    }

    /** Notes the commit index of every group {@code server} recovered from its storage (the replay's end). */
    void recovered(RaftServer server) {
        try {
            for (RaftGroupId g : server.getGroupIds()) {
                upTo.put(g, server.getDivision(g).getRaftLog().getLastCommittedIndex());
            }
        } catch (IOException e) {
            upTo.clear(); // nothing to wait for: the topologies are acted on as they come
        }
    }

    /** Whether the topology of group {@code active} (null: none applied yet) is still one of the replay's. */
    boolean replaying(RaftGroupId active, StateMachine machine) {
        if (upTo.isEmpty() || System.nanoTime() - started > LIMIT_NS) {
            return false;
        }
        if (active == null) {
            return true;
        }
        Long end = upTo.get(active);
        return end != null && machine != null && machine.getLastAppliedTermIndex() != null
                && machine.getLastAppliedTermIndex().getIndex() < end;
    }
}
