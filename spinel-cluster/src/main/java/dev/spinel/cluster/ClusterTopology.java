package dev.spinel.cluster;

import java.util.Map;
import java.util.function.Consumer;

/**
 * What a Spinel node knows and decides of the cluster's topology: the current {@link Topology}, its
 * own node id, and the one way to change the topology, {@link #commit}, which puts a change in the
 * single order every node applies (Raft's log in {@link RaftTopology}). The server depends on this
 * interface only.
 *
 * <p>Thread-safety: implementations are safe for use by any thread; listeners are called on the
 * implementation's own thread, one change at a time, in the committed order.
 */
public interface ClusterTopology extends AutoCloseable {

    /** This node's id (40 hex characters). */
    String myId();

    /** The topology after the last change applied here. */
    Topology current();

    /**
     * The position of {@link #current()} in the one order of changes (Raft's log index of the change that made it;
     * 0 before any). During a listener's call: the position of the topology it is told of.
     */
    long currentIndex();

    /**
     * Waits until node {@code nodeId} has applied the change at position {@code index} (see {@link #currentIndex}),
     * at most {@code timeoutMs}: e.g. a node that handed a slot over learns when the new owner knows it.
     *
     * @return false if it did not within the time (or cannot be asked)
     */
    boolean awaitApplied(String nodeId, long index, long timeoutMs) throws InterruptedException;

    /**
     * Whether {@link #current()} is still an old topology replayed from the log recovered at start (until the replay
     * reaches where the node stopped): the server acts on no role change it shows (see {@code ReplayWatch}).
     */
    default boolean replaying() {
        return false;
    }

    /** Adds a listener told of every topology applied here from now on. */
    void listen(Consumer<Topology> listener);

    /**
     * Adds a listener told, when this node has been moved into another group (a node of that group brought it
     * in), of the last topology of the group it left: the other members of that group are to follow it (Redis's
     * MEET is transitive through gossip). Called on the implementation's thread, after the new topology's
     * listeners.
     */
    void listenMoves(Consumer<Topology> listener);

    /**
     * Whether this node votes in its group (listed in its Raft configuration): a node being brought into another
     * group already applies that group's changes before it does, and never does if the change fails.
     */
    default boolean voting() {
        return true;
    }

    /** The id of the Raft group this node is in ("" while it is not known yet, at a restart). */
    String groupId();

    /**
     * Commits {@code change} and waits until it is applied here; returns the topology after it.
     *
     * @throws TopologyException with Redis's error text when the change is refused, or when it could not
     *                           be committed in time
     */
    Topology commit(TopologyChange change) throws TopologyException;

    /**
     * Brings the node {@code other} (as its own CLUSTER NODES "myself" line described it) into this
     * node's cluster: committed as an {@link TopologyChange.AddNode}, and the node joins the group that
     * decides the order. Returns when the change is committed.
     *
     * @throws TopologyException when the node cannot be joined
     */
    void join(ClusterNode other, int[] slots) throws TopologyException;

    /**
     * This lone node asked another to bring it into its group ({@code on}), or that ended: meanwhile a
     * {@link #commit} waits, so that a change (ADDSLOTS right after MEET, as Redis's Tcl cluster helpers send) is
     * made in the group the node joins, not in its own group that it is about to drop.
     */
    void joining(boolean on);

    /**
     * This node leaves the cluster it shares (CLUSTER RESET of a node that knows others): its record is
     * removed on every node and it stops voting. The instance is to be closed afterwards.
     */
    void leave() throws TopologyException;

    /**
     * CLUSTER RESET: this node leaves the cluster and starts again alone, with no slots, as a primary;
     * with {@code newId}, under that new id with epochs at 0 (a hard reset).
     */
    void reset(String newId) throws TopologyException;

    /**
     * Milliseconds since this node last knew itself in contact with a majority of the group (as a
     * follower: since the leader's last message; as the leader: since a majority last answered it;
     * {@link Long#MAX_VALUE} while there is no leader). A node alone in its group is always in contact.
     */
    long majorityContactAgeMs();

    /**
     * Waits until this node has applied every change the leader had applied when asked (a read through the
     * leader, no log entry): a node back in contact after a cut learns what was decided meanwhile.
     *
     * @throws TopologyException when the leader cannot be asked, or this node does not catch up, in time
     */
    void catchUp() throws TopologyException;

    /**
     * On the group's leader: each other member's milliseconds since it last answered the leader; on any
     * other node, an empty map (only the leader decides failovers).
     */
    Map<String, Long> peerSilenceMs();

    @Override
    void close();
}
