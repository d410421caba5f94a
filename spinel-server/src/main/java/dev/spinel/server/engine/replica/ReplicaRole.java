package dev.spinel.server.engine.replica;

import dev.spinel.store.Keyspace;

/**
 * What being a replica changes in the engine: no expiry of its own (its master's DELs do it), but for the keys
 * its clients gave a time to live on a writable replica ({@link ReplicaKeysWithExpire}), and the loading state
 * while a full resync loads the master's dataset ({@link DatasetLoading}). Replication switches it
 * ({@link #active(boolean)}) when the server starts or stops replicating.
 *
 * <p>Thread-safety: one volatile flag and its volatile listener; the parts are thread-safe.
 */
public final class ReplicaRole {
    private volatile boolean active;
    private volatile Runnable listener;
    private final DatasetLoading loading = new DatasetLoading();
    private final ReplicaKeysWithExpire keysWithExpire;

    public ReplicaRole(Keyspace keyspace) {
        this.keysWithExpire = new ReplicaKeysWithExpire(keyspace);
    }

    /** True while this server replicates a master. */
    public boolean active() {
        return active;
    }

    public void active(boolean on) {
        boolean was = active;
        active = on;
        Runnable l = listener;
        if (l != null && was != on) {
            l.run();
        }
    }

    /** Called after each change of {@link #active()} (the OOM score of the process follows the role). */
    public void listen(Runnable l) {
        listener = l;
    }

    /** A full resync's load of the master's dataset (INFO loading / async_loading, -LOADING). */
    public DatasetLoading loading() {
        return loading;
    }

    /** The keys clients of a writable replica gave a time to live, which the replica expires itself. */
    public ReplicaKeysWithExpire keysWithExpire() {
        return keysWithExpire;
    }
}
