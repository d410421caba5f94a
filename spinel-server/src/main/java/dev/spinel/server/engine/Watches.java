package dev.spinel.server.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * WATCH bookkeeping: which sessions watch which (database, key), so that a write to the key from
 * any client — or its expiry, or a flush or swap of its database — makes those sessions' next EXEC
 * fail. The engine calls {@link #touch} after every command that changed data, for the keys of that
 * command; when nobody watches anything the check is one {@code isEmpty()}.
 *
 * <p>Thread-safety: concurrent map of concurrent sets; the per-session dirty flag is volatile.
 */
public final class Watches {
    /** A watched key; {@code expiredAtWatch} is only carried in the session's own list. */
    record Key(int db, ByteKey key, boolean expiredAtWatch) {
        Key {
            // identity in the registry ignores expiredAtWatch
        }

        Key registryKey() {
            return expiredAtWatch ? new Key(db, key, false) : this;
        }
    }

    private final Map<Key, Set<Session>> watchers = new ConcurrentHashMap<>();

    public boolean isEmpty() {
        return watchers.isEmpty();
    }

    void watch(Session s, int db, byte[] key, boolean expiredNow) {
        Key k = new Key(db, new ByteKey(key), false);
        for (Key w : s.watched()) {
            if (w.registryKey().equals(k)) {
                return;
            }
        }
        s.watched().add(new Key(db, k.key(), expiredNow));
        // The add happens inside compute, under the map's lock for this key: with computeIfAbsent(...).add(s)
        // an unwatchAll of the last other watcher could drop the set from the map between the two calls,
        // and this registration was lost (a write then failed no EXEC: a lost update under WATCH).
        watchers.compute(k, (x, set) -> {
            Set<Session> sessions = set != null ? set : ConcurrentHashMap.newKeySet();
            sessions.add(s);
            return sessions;
        });
    }

    void unwatchAll(Session s) {
        List<Key> keys = s.watched();
        for (Key w : keys) {
            watchers.computeIfPresent(w.registryKey(), (x, set) -> {
                set.remove(s);
                return set.isEmpty() ? null : set;
            });
        }
        keys.clear();
        s.watchDirty(false);
    }

    /** A key of database {@code db} changed: every session watching it fails its next EXEC. */
    public void touch(int db, byte[] key) {
        Set<Session> set = watchers.get(new Key(db, new ByteKey(key), false));
        if (set != null) {
            for (Session s : set) {
                s.watchDirty(true);
            }
        }
    }

    /**
     * Redis's touchAllWatchedKeysInDb for FLUSHDB, FLUSHALL (before the keys go) and SWAPDB (after the swap):
     * a watched key of database {@code watchedDb} is touched only if it is in {@code emptied} (where the
     * database's old contents are now) or in {@code replacement} (its new contents; null for a flush). Keys
     * count while in the table, expired or not, as Redis's dictFind. The caller holds every stripe of both.
     */
    public void touchPresent(int watchedDb, dev.spinel.store.Database emptied, dev.spinel.store.Database replacement) {
        for (Map.Entry<Key, Set<Session>> e : watchers.entrySet()) {
            if (e.getKey().db() != watchedDb) {
                continue;
            }
            byte[] k = e.getKey().key().bytes();
            if (present(emptied, k) || (replacement != null && present(replacement, k))) {
                for (Session s : e.getValue()) {
                    s.watchDirty(true);
                }
            }
        }
    }

    private static boolean present(dev.spinel.store.Database db, byte[] key) {
        int h = dev.spinel.store.KeyHash.hash(key);
        return db.segment(h).find(key, 0, key.length, h) != null;
    }

    /** Every watched key of a database (or of all, when {@code db < 0}) changed. */
    public void touchAll(int db) {
        for (Map.Entry<Key, Set<Session>> e : watchers.entrySet()) {
            if (db < 0 || e.getKey().db() == db) {
                for (Session s : e.getValue()) {
                    s.watchDirty(true);
                }
            }
        }
    }

    static List<Key> newList() {
        return new ArrayList<>();
    }
}
