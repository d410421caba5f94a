package dev.spinel.server.engine.replica;

import dev.spinel.store.ByteKey;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The keys that clients of a writable replica ({@code replica-read-only no}) gave a time to live, as Redis 7.0's
 * {@code slaveKeysWithExpire}: a replica does no active expiry of its own (its master's DELs remove the master's
 * keys), but its master knows nothing of these keys, so the cron expires them here ({@link #expireSome}), as
 * Redis's expireSlaveKeys. Each name maps to a bit mask of the databases (0 to 63, as Redis) it was written in.
 * INFO stats' {@code slave_expires_tracked_keys} is {@link #size}. Emptied by FLUSHALL and a full resync, as
 * Redis's flushSlaveKeysWithExpireList.
 *
 * <p>Thread-safety: every method is synchronized (client writes on any event loop, the cron, flushes); the
 * stripe of a key is taken inside, never the other way round, except by {@link #remember}'s callers, which may
 * hold the stripes of the keys they pass (the lock is re-entrant).
 */
public final class ReplicaKeysWithExpire {
    /** Redis's stop rule: a cron call ends after more than this many keys still to expire later. */
    private static final int MAX_NOT_EXPIRED = 3;
    private static final long BUDGET_NANOS = 1_000_000;

    private final Keyspace keyspace;
    /** Key name → databases; visited in order, a key still alive moves to the end (round robin). */
    private final LinkedHashMap<ByteKey, Long> keys = new LinkedHashMap<>();

    ReplicaKeysWithExpire(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    /**
     * Records {@code key} of database {@code db}, written by a client's command, if it now has a time to live
     * (Redis's setExpire by a client other than the master, on a writable replica).
     */
    public void rememberIfVolatile(int db, byte[] key) {
        if (db > 63) {
            return; // as Redis: the bit mask has 64 databases
        }
        int hash = KeyHash.hash(key);
        Segment seg = keyspace.db(db).segment(hash);
        seg.lock();
        try {
            Entry e = seg.find(key, 0, key.length, hash);
            if (e == null || e.expireAt() < 0) {
                return;
            }
        } finally {
            seg.unlock();
        }
        synchronized (this) {
            keys.merge(new ByteKey(key), 1L << db, (a, b) -> a | b);
        }
    }

    /**
     * Deletes tracked keys past their time to live ({@code now}, Unix ms), as Redis's expireSlaveKeys: stops
     * after more than {@value #MAX_NOT_EXPIRED} keys that expire later, after a millisecond, or once every key
     * was visited. A key whose every database no longer holds it with a time to live is forgotten. Returns the
     * number of keys deleted.
     */
    public synchronized int expireSome(long now) {
        if (keys.isEmpty()) {
            return 0;
        }
        long start = System.nanoTime();
        int deleted = 0;
        int notExpired = 0;
        int visits = keys.size();
        Map<ByteKey, Long> stillAlive = new LinkedHashMap<>();
        Iterator<Map.Entry<ByteKey, Long>> it = keys.entrySet().iterator();
        for (int n = 0; n < visits && it.hasNext(); n++) {
            Map.Entry<ByteKey, Long> me = it.next();
            byte[] key = me.getKey().bytes();
            long dbs = me.getValue();
            long alive = 0;
            for (int db = 0; dbs != 0 && db < keyspace.databases(); db++, dbs >>>= 1) {
                if ((dbs & 1) == 0) {
                    continue;
                }
                int r = expireIn(keyspace.db(db), key, now);
                if (r > 0) {
                    deleted++;
                } else if (r == 0) {
                    alive |= 1L << db;
                    notExpired++;
                }
            }
            it.remove();
            if (alive != 0) {
                stillAlive.put(me.getKey(), alive);
            }
            if (notExpired > MAX_NOT_EXPIRED || ((n + 1) % 64 == 0 && System.nanoTime() - start > BUDGET_NANOS)) {
                break;
            }
        }
        keys.putAll(stillAlive); // at the end: the next call starts with the keys not visited now
        return deleted;
    }

    /** 1: deleted as expired; 0: has a time to live not reached (or expiry deletions are suspended); -1: gone or persistent. */
    private static int expireIn(Database db, byte[] key, long now) {
        int hash = KeyHash.hash(key);
        Segment seg = db.segment(hash);
        seg.lock();
        try {
            Entry e = seg.find(key, 0, key.length, hash);
            if (e == null || e.expireAt() < 0) {
                return -1;
            }
            if (e.expireAt() > now) {
                return 0;
            }
            // the lookup that deletes an expired key with the keyspace's signals (expired event, expired_keys)
            return seg.get(key, 0, key.length, hash, now) == null && seg.find(key, 0, key.length, hash) == null ? 1 : 0;
        } finally {
            seg.unlock();
        }
    }

    /** INFO's {@code slave_expires_tracked_keys}. */
    public synchronized int size() {
        return keys.size();
    }

    /** Forgets every key (FLUSHALL, a full resync): keys of the same names may come from the master next. */
    public synchronized void clear() {
        keys.clear();
    }
}
