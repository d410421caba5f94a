package dev.spinel.cluster;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A single node's topology, its changes applied in the order {@link #commit} is called: for a node that
 * runs without a Raft group (and for tests of what the changes do). It cannot {@link #join} others.
 *
 * <p>Thread-safety: commits are serialized by this object's monitor; {@link #current} is a volatile read.
 */
public final class LocalTopology implements ClusterTopology {
    private volatile String myId;
    private volatile Topology current;
    private final List<Consumer<Topology>> listeners = new CopyOnWriteArrayList<>();

    public LocalTopology(String myId, Topology initial) {
        this.myId = myId;
        this.current = initial;
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
    public void listen(Consumer<Topology> listener) {
        listeners.add(listener);
    }

    @Override
    public synchronized Topology commit(TopologyChange change) throws TopologyException {
        Topology.Builder b = current.toBuilder();
        change.apply(b);
        publish(b.build());
        return current;
    }

    private void publish(Topology t) {
        current = t;
        for (Consumer<Topology> l : listeners) {
            l.accept(t);
        }
    }

    @Override
    public void join(ClusterNode other, int[] slots) throws TopologyException {
        throw new TopologyException("ERR This node runs without a Raft group and cannot meet other nodes");
    }

    @Override
    public synchronized void reset(String newId) {
        ClusterNode me = current.node(myId);
        if (newId != null) {
            myId = newId;
            me = new ClusterNode(newId, me.host(), me.port(), me.busPort(), null, 0);
        } else {
            me = me.withPrimary(null);
        }
        Topology fresh = Topology.of(me);
        if (newId == null) {
            Topology.Builder b = fresh.toBuilder();
            b.currentEpoch = current.currentEpoch();
            fresh = b.build();
        }
        publish(fresh);
    }

    @Override
    public void close() {
    }
}
