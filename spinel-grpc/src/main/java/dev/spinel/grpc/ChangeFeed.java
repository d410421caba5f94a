package dev.spinel.grpc;

import dev.spinel.server.engine.ports.KeyObserver;

/**
 * The engine's change hook as the gRPC service sees it: commands (RESP's, and the ones gRPC's own
 * writes run through the engine) move the versions of keys gRPC has seen and feed Watch streams;
 * expiries end versions. A write of the service's own moves its key's version once, in its unit (the
 * hook leaves it alone). Active only while gRPC holds versions or has watchers, so RESP writes cost
 * nothing extra otherwise.
 *
 * <p>Thread-safety: thread-safe (see {@link KeyObserver}).
 */
final class ChangeFeed implements KeyObserver {
    private final KvStore store;
    private final KeyVersions versions;
    private final WatchHub hub;

    ChangeFeed(KvStore store) {
        this.store = store;
        this.versions = store.versions();
        this.hub = store.hub();
    }

    @Override
    public boolean active() {
        return !versions.isEmpty() || !hub.isEmpty();
    }

    @Override
    public void keyChanged(int db, byte[] key) {
        if (db == KvStore.DB) {
            if (!store.isOwnWrite(key) && versions.has(key)) {
                store.refreshVersion(key);
            }
            hub.changed(key, false);
        }
    }

    @Override
    public void keyExpired(int db, byte[] key) {
        if (db == KvStore.DB) {
            versions.forget(key);
            hub.changed(key, true);
        }
    }

    @Override
    public void databaseChanged(int db) {
        if (db == KvStore.DB || db == -1) {
            versions.clear();
            hub.flushed();
        }
    }
}
