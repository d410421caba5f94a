package dev.spinel.store;

/**
 * Hears about changes the store makes on its own (keys expiring, a value overwritten), so that the engine can notify
 * watchers, keyspace-event subscribers and the append-only log. Called with the key's segment lock
 * held: implementations must be quick and must not lock other segments.
 */
public interface KeyspaceListener {
    KeyspaceListener NONE = (db, key) -> { };

    void expired(Database db, byte[] key);

    /**
     * The key of {@code e} expired and {@code e} left {@code db} (the store's call): a listener that needs the
     * value (e.g. to weigh what freeing it costs) overrides this one.
     */
    default void expired(Database db, Entry e) {
        expired(db, e.key());
    }

    /**
     * A command replaced the collection {@code old} held by a key of {@code db} with another value (Redis's
     * dbOverwrite); not called when the old value is a string, so that SET's overwrite of a string costs nothing.
     */
    default void overwritten(Database db, Object old) {
    }

    /**
     * A key was added to {@code db} (Redis's dbAdd, its "new" keyspace event); not called by loaders. The entry
     * is passed rather than its key so that a listener with nothing to do allocates nothing ({@link Entry#key()}).
     */
    default void added(Database db, Entry e) {
    }
}
