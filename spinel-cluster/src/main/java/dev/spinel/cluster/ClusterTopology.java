package dev.spinel.cluster;

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

    /** Adds a listener told of every topology applied here from now on. */
    void listen(Consumer<Topology> listener);

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
     * CLUSTER RESET: this node leaves the cluster and starts again alone, with no slots, as a primary;
     * with {@code newId}, under that new id with epochs at 0 (a hard reset).
     */
    void reset(String newId) throws TopologyException;

    @Override
    void close();
}
