package dev.spinel.server.engine;

import java.util.Arrays;

/** A key of one database, as a map key of the waiter queues. Immutable. */
final class KeyRef {
    final int db;
    final byte[] key;
    private final int hash;

    KeyRef(int db, byte[] key) {
        this.db = db;
        this.key = key;
        this.hash = 31 * db + Arrays.hashCode(key);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyRef k && k.db == db && Arrays.equals(k.key, key);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
