package dev.spinel.store;

import java.util.concurrent.atomic.AtomicLong;

/**
 * All databases of one server. The number of databases is fixed at construction.
 *
 * <p>Thread-safety: safe for concurrent use by any number of threads; atomicity of an operation is
 * provided by the segment locks its caller takes (see {@link Database} and {@link StripeLocks}).
 */
public final class Keyspace {
    private final Database[] dbs;
    private volatile KeyspaceListener listener = KeyspaceListener.NONE;
    private final AtomicLong expiredKeys = new AtomicLong();
    private final long startMillis = System.currentTimeMillis();

    public Keyspace(int databases) {
        dbs = new Database[databases];
        for (int i = 0; i < databases; i++) {
            dbs[i] = new Database(this, i);
        }
    }

    public int databases() {
        return dbs.length;
    }

    public Database db(int index) {
        return dbs[index];
    }

    public void listener(KeyspaceListener l) {
        this.listener = l == null ? KeyspaceListener.NONE : l;
    }

    /** Total keys expired (lazily or actively) since start: INFO's {@code expired_keys}. */
    public long expiredKeys() {
        return expiredKeys.get();
    }

    /** CONFIG RESETSTAT: Redis resets the expired-keys counter with the other statistics. */
    public void resetExpiredKeys() {
        expiredKeys.set(0);
    }

    /** Removes every key of every database; each database is cleared atomically. */
    public void clearAll() {
        for (Database db : dbs) {
            db.clear();
        }
    }

    /** Swaps two databases' contents atomically (SWAPDB): all stripes of both are held. */
    public void swap(int a, int b) {
        if (a == b) {
            return;
        }
        Database first = dbs[Math.min(a, b)];
        Database second = dbs[Math.max(a, b)];
        first.lockAll();
        second.lockAll();
        try {
            first.swapWith(second);
        } finally {
            second.unlockAll();
            first.unlockAll();
        }
    }

    /**
     * One active-expiry pass over every database, visiting at most {@code bucketsPerSegment} buckets
     * per stripe. Returns the keys deleted; the caller repeats while it stays within its time budget.
     */
    public int activeExpireCycle(long now, int bucketsPerSegment) {
        int n = 0;
        for (Database db : dbs) {
            n += db.activeExpire(now, bucketsPerSegment);
        }
        return n;
    }

    void expired(Database db, byte[] key) {
        expiredKeys.incrementAndGet();
        listener.expired(db, key);
    }

    /** The LRU clock: seconds since this keyspace was created. */
    int lruClock() {
        return (int) ((System.currentTimeMillis() - startMillis) / 1000);
    }

    /** Seconds since a stamp taken from {@link #lruClock()} (OBJECT IDLETIME). */
    public long idleSeconds(Entry e) {
        return Math.max(0, lruClock() - e.access());
    }

    public int nowClock() {
        return lruClock();
    }
}
