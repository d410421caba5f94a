package dev.spinel.store;

/**
 * Hears about changes the store makes on its own (keys expiring), so that the engine can notify
 * watchers, keyspace-event subscribers and the append-only log. Called with the key's segment lock
 * held: implementations must be quick and must not lock other segments.
 */
public interface KeyspaceListener {
    KeyspaceListener NONE = (db, key) -> { };

    void expired(Database db, byte[] key);

    /**
     * A key was added to {@code db} (Redis's dbAdd, its "new" keyspace event); not called by loaders. The entry
     * is passed rather than its key so that a listener with nothing to do allocates nothing ({@link Entry#key()}).
     */
    default void added(Database db, Entry e) {
    }
}
