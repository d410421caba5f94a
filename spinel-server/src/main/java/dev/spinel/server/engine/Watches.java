package dev.spinel.server.engine;

import dev.spinel.store.ByteKey;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * WATCH bookkeeping: which sessions watch which (database, key), so that a write to the key from
 * any client — or its expiry, or a flush or swap of its database — makes those sessions' next EXEC
 * fail. The engine calls {@link #touch} after every command that changed data, for the keys of that
 * command; when nobody watches anything the check is one {@code isEmpty()}.
 *
 * <p>A key already logically expired when watched (Redis's {@code watchedKey.expired}) is, for that watch,
 * a key that does not exist: its deletion (lazily, by the active cycle, FLUSHDB or SWAPDB) is no change and
 * only clears the mark, and a swap that brings in another expired copy is no change either; a watched
 * missing key that a swap replaces with an expired one becomes marked.
 *
 * <p>Thread-safety: concurrent map of concurrent maps; the per-session dirty flag and each watch's
 * expired mark are volatile. A session's own list is touched only by its own thread.
 */
public final class Watches {
    /** A watched (database, key): the registry's key. */
    record Key(int db, ByteKey key) {
    }

    /** One session's watch of one key. */
    static final class Watched {
        final Key key;
        /** The key was logically expired when watched and has not been deleted since. */
        volatile boolean expired;

        Watched(Key key, boolean expired) {
            this.key = key;
            this.expired = expired;
        }
    }

    private final Map<Key, Map<Session, Watched>> watchers = new ConcurrentHashMap<>();
    private final Keyspace keyspace;

    public Watches(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    public boolean isEmpty() {
        return watchers.isEmpty();
    }

    /** How many keys {@code s} watches (CLIENT LIST's multi-mem counts them). */
    public int count(Session s) {
        WatchState w = s.watch();
        return w.watching() ? w.watched().size() : 0;
    }

    void watch(Session s, int db, byte[] key, boolean expiredNow) {
        Key k = new Key(db, new ByteKey(key));
        for (Watched w : s.watch().watched()) {
            if (w.key.equals(k)) {
                return;
            }
        }
        Watched w = new Watched(k, expiredNow);
        s.watch().watched().add(w);
        // The put happens inside compute, under the map's lock for this key: with computeIfAbsent(...).put
        // an unwatchAll of the last other watcher could drop the map from the registry between the two
        // calls, and this registration was lost (a write then failed no EXEC: a lost update under WATCH).
        watchers.compute(k, (x, map) -> {
            Map<Session, Watched> sessions = map != null ? map : new ConcurrentHashMap<>();
            sessions.put(s, w);
            return sessions;
        });
    }

    void unwatchAll(Session s) {
        List<Watched> keys = s.watch().watched();
        for (Watched w : keys) {
            watchers.computeIfPresent(w.key, (x, map) -> {
                map.remove(s);
                return map.isEmpty() ? null : map;
            });
        }
        keys.clear();
        s.watch().dirty(false);
    }

    /**
     * A key of database {@code db} changed: every session watching it fails its next EXEC, except those
     * that watched it expired while it is still expired or gone (Redis's touchWatchedKey). Called with the
     * key's stripe held, after the change.
     */
    public void touch(int db, byte[] key) {
        Map<Session, Watched> map = watchers.get(new Key(db, new ByteKey(key)));
        if (map == null) {
            return;
        }
        Entry current = null;
        boolean looked = false;
        for (Map.Entry<Session, Watched> e : map.entrySet()) {
            Watched w = e.getValue();
            if (w.expired) {
                if (!looked) {
                    current = find(keyspace.db(db), key);
                    looked = true;
                }
                if (current == null) {
                    w.expired = false; // the expired key is gone: logically no change
                    continue;
                }
                if (expired(current)) {
                    continue;
                }
            }
            e.getKey().watch().dirty(true);
        }
    }

    /**
     * Redis's touchAllWatchedKeysInDb for FLUSHDB, FLUSHALL (before the keys go) and SWAPDB (after the swap):
     * a watched key of database {@code watchedDb} is touched only if it is in {@code emptied} (where the
     * database's old contents are now) or in {@code replacement} (its new contents; null for a flush). Keys
     * count while in the table, expired or not, as Redis's dictFind; a watch of an expired key is handled as
     * the class comment says. The caller holds every stripe of both.
     */
    public void touchPresent(int watchedDb, Database emptied, Database replacement) {
        for (Map.Entry<Key, Map<Session, Watched>> e : watchers.entrySet()) {
            if (e.getKey().db() != watchedDb) {
                continue;
            }
            byte[] k = e.getKey().key().bytes();
            boolean inEmptied = find(emptied, k) != null;
            Entry replaced = replacement != null ? find(replacement, k) : null;
            if (!inEmptied && replaced == null) {
                continue;
            }
            for (Map.Entry<Session, Watched> sw : e.getValue().entrySet()) {
                Watched w = sw.getValue();
                if (w.expired) {
                    if (replaced == null) {
                        w.expired = false; // expired key now deleted: no logical change
                        continue;
                    } else if (expired(replaced)) {
                        continue; // expired key remains expired
                    }
                } else if (!inEmptied && expired(replaced)) {
                    w.expired = true; // a missing key replaced by an expired one: still missing
                    continue;
                }
                sw.getKey().watch().dirty(true);
            }
        }
    }

    private static Entry find(Database db, byte[] key) {
        int h = KeyHash.hash(key);
        Segment seg = db.segment(h);
        seg.lock(); // reentrant: the callers already hold it
        try {
            return seg.find(key, 0, key.length, h);
        } finally {
            seg.unlock();
        }
    }

    private static boolean expired(Entry e) {
        long at = e.expireAt();
        return at >= 0 && at <= System.currentTimeMillis();
    }

    /** Every watched key of a database (or of all, when {@code db < 0}) changed. */
    public void touchAll(int db) {
        for (Map.Entry<Key, Map<Session, Watched>> e : watchers.entrySet()) {
            if (db < 0 || e.getKey().db() == db) {
                for (Session s : e.getValue().keySet()) {
                    s.watch().dirty(true);
                }
            }
        }
    }

    static List<Watched> newList() {
        return new ArrayList<>();
    }

    /**
     * A session's WATCH state: the keys it watches ({@link Watches} keeps the reverse index) and whether one of
     * them changed since.
     *
     * <p>Thread-safety: the list is used under {@link Watches}'s locks; the dirty flag is volatile, set by the
     * thread that wrote a watched key and read by the session's EXEC.
     */
    static final class WatchState {
        private List<Watches.Watched> watched;
        /** A watched key changed: the next EXEC fails. Set by whichever thread wrote the key. */
        private volatile boolean watchDirty;

        List<Watches.Watched> watched() {
            if (watched == null) {
                watched = Watches.newList();
            }
            return watched;
        }

        boolean watching() {
            return watched != null && !watched.isEmpty();
        }

        boolean dirty() {
            return watchDirty;
        }

        void dirty(boolean on) {
            this.watchDirty = on;
        }
    }
}
