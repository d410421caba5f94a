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
    /** True under a maxmemory LFU policy: access stamps are {@link Lfu} counters, not LRU clocks. */
    private volatile boolean lfu;

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

    /**
     * Takes every stripe of every database in the global lock order (database, then segment): the
     * whole keyspace stands still until {@link #unlockAll()}. For point-in-time work (EXEC, arming a
     * snapshot, switching the append-only log).
     */
    public void lockAll() {
        for (Database db : dbs) {
            db.lockAll();
        }
    }

    /** Releases what {@link #lockAll()} took, in reverse order. */
    public void unlockAll() {
        for (int i = dbs.length - 1; i >= 0; i--) {
            dbs[i].unlockAll();
        }
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

    /**
     * Removes every key of every database atomically (FLUSHALL): every stripe of every database is
     * held, in the global lock order, while the tables are dropped. Returns the number of keys removed.
     */
    public long clearAll() {
        return clearAll(n -> { });
    }

    /** Like {@link #clearAll()}; {@code whileLocked} receives the count before the stripes are released. */
    public long clearAll(java.util.function.LongConsumer whileLocked) {
        for (Database db : dbs) {
            db.lockAll();
        }
        try {
            long removed = 0;
            for (Database db : dbs) {
                removed += db.clearLocked();
            }
            whileLocked.accept(removed);
            return removed;
        } finally {
            for (int i = dbs.length - 1; i >= 0; i--) {
                dbs[i].unlockAll();
            }
        }
    }

    /** Swaps two databases' contents atomically (SWAPDB): all stripes of both are held. */
    public void swap(int a, int b) {
        swap(a, b, () -> { });
    }

    /** Like {@link #swap(int, int)}; {@code whileLocked} runs after the swap, before the stripes are released. */
    public void swap(int a, int b, Runnable whileLocked) {
        if (a == b) {
            whileLocked.run();
            return;
        }
        Database first = dbs[Math.min(a, b)];
        Database second = dbs[Math.max(a, b)];
        first.lockAll();
        second.lockAll();
        try {
            first.swapWith(second);
            whileLocked.run();
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

    void added(Database db, byte[] key) {
        listener.added(db, key);
    }

    void expired(Database db, byte[] key) {
        expiredKeys.incrementAndGet();
        listener.expired(db, key);
    }

    /** The LRU clock: seconds since this keyspace was created. */
    int lruClock() {
        return (int) ((System.currentTimeMillis() - startMillis) / 1000);
    }

    /** Selects what entries' access stamps track: LFU counters (true) or the LRU clock (false). */
    public void lfu(boolean on) {
        this.lfu = on;
    }

    public boolean lfu() {
        return lfu;
    }

    /** Records an access to an entry (a read that is not NOTOUCH); the caller holds its segment lock. */
    public void touch(Entry e) {
        e.access = lfu ? Lfu.touched(e.access, minutes()) : lruClock();
    }

    /** The access stamp of a new entry. */
    int initialAccess() {
        return lfu ? Lfu.initial(minutes()) : lruClock();
    }

    /** OBJECT FREQ: the entry's LFU counter after decay (meaningful under an LFU policy). */
    public int lfuCounter(Entry e) {
        return Lfu.counter(e.access, minutes());
    }

    private static long minutes() {
        return System.currentTimeMillis() / 60_000;
    }

    /** Seconds since a stamp taken from {@link #lruClock()} (OBJECT IDLETIME). */
    public long idleSeconds(Entry e) {
        return Math.max(0, lruClock() - e.access());
    }

    public int nowClock() {
        return lruClock();
    }
}
