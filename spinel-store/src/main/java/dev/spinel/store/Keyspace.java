package dev.spinel.store;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

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
    /** Whole seconds, so that the LRU clock ticks with the wall clock's seconds, as Redis's does. */
    private final long startSeconds;
    /** True under a maxmemory LFU policy: access stamps are {@link Lfu} counters, not LRU clocks. */
    private volatile boolean lfu;
    private volatile boolean sharedIntegers = true;
    /** False on a replica: reads report expired keys missing without deleting them (see {@link Segment#read}). */
    private volatile boolean lazyExpiry = true;
    /**
     * Until when (Unix ms, exclusive) expired keys are not deleted (CLIENT PAUSE, as Redis 7.0: reads see
     * them gone, but neither lazy nor active expiry deletes them, so nothing is propagated meanwhile); 0: never.
     * Read only on the path of a key found expired.
     */
    private volatile long expiryDeletesSuspendedUntil;

    public Keyspace(int databases) {
        this(databases, false);
    }

    /**
     * @param slotIndexed keep database 0's keys by hash slot ({@link SlotIndex}, Redis Cluster mode);
     *                    without it writes pay nothing for an index
     */
    public Keyspace(int databases, boolean slotIndexed) {
        this(databases, slotIndexed, System.currentTimeMillis() / 1000);
    }

    private Keyspace(int databases, boolean slotIndexed, long startSeconds) {
        this.startSeconds = startSeconds;
        dbs = new Database[databases];
        for (int i = 0; i < databases; i++) {
            dbs[i] = new Database(this, i, slotIndexed && i == 0); // cluster mode has db 0 only
        }
    }

    /** Whether reads delete the expired keys they meet (false on a replica, whose master sends the DELs). */
    public boolean lazyExpiry() {
        return lazyExpiry;
    }

    public void lazyExpiry(boolean on) {
        lazyExpiry = on;
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

    /** {@link #lockAll()} with a deadline (System.nanoTime()); false, holding nothing, when it passed first. */
    public boolean tryLockAllUntil(long deadlineNanos) {
        for (int i = 0; i < dbs.length; i++) {
            if (!dbs[i].tryLockAllUntil(deadlineNanos)) {
                for (int k = i - 1; k >= 0; k--) {
                    dbs[k].unlockAll();
                }
                return false;
            }
        }
        return true;
    }

    /** Releases what {@link #lockAll()} took, in reverse order. */
    public void unlockAll() {
        for (int i = dbs.length - 1; i >= 0; i--) {
            dbs[i].unlockAll();
        }
    }

    /** Suspends the deletion of expired keys until {@code untilMillis} (0 ends it); see {@link #expiryDeletesSuspended}. */
    public void suspendExpiryDeletes(long untilMillis) {
        this.expiryDeletesSuspendedUntil = untilMillis;
    }

    /** True when an expired key found at {@code now} must be left in place (reported absent, not deleted). */
    public boolean expiryDeletesSuspended(long now) {
        long until = expiryDeletesSuspendedUntil;
        return until != 0 && now < until;
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
    public long clearAll(LongConsumer whileLocked) {
        return clearAll(() -> { }, whileLocked);
    }

    /** Like {@link #clearAll(java.util.function.LongConsumer)}; {@code beforeClear} runs locked, before any key goes. */
    public long clearAll(Runnable beforeClear, LongConsumer whileLocked) {
        for (Database db : dbs) {
            db.lockAll();
        }
        try {
            beforeClear.run();
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

    /**
     * An empty keyspace of the same shape with the same access clock and settings, to load a dataset aside
     * and then take it with {@link #swapContents} (a replica's {@code repl-diskless-load swapdb}); slot-indexed as
     * this one is (cluster mode), so the keys loaded aside come with their own slot index.
     */
    public Keyspace emptySibling() {
        Keyspace k = new Keyspace(dbs.length, dbs.length > 0 && dbs[0].slotIndex() != null, startSeconds);
        k.lfu = lfu;
        k.sharedIntegers = sharedIntegers;
        k.lazyExpiry = lazyExpiry;
        return k;
    }

    /**
     * Exchanges every database's contents with {@code other}'s, holding every stripe of both (this keyspace's
     * first), slot indexes included; {@code whileLocked} runs after the exchange, before they are released. Clients
     * see the old dataset, then the new one, never a mix.
     */
    public void swapContents(Keyspace other, Runnable whileLocked) {
        if (other.dbs.length != dbs.length) {
            throw new IllegalArgumentException("different database counts");
        }
        lockAll();
        other.lockAll();
        try {
            for (int i = 0; i < dbs.length; i++) {
                dbs[i].swapWith(other.dbs[i]);
            }
            whileLocked.run();
        } finally {
            other.unlockAll();
            unlockAll();
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

    void added(Database db, Entry e) {
        listener.added(db, e);
    }

    void overwritten(Database db, Object old) {
        listener.overwritten(db, old);
    }

    void expired(Database db, Entry e) {
        expiredKeys.incrementAndGet();
        listener.expired(db, e);
    }

    /**
     * The LRU clock as {@link #tickClock()} last set it; -1 until it is first called (then every read asks the
     * wall clock, as an embedded keyspace without a cron needs).
     */
    private volatile int cachedLru = -1;

    /**
     * Sets the LRU clock to now, as Redis's serverCron sets {@code server.lruclock}: the server calls it
     * {@code hz} times a second, so a read or write of a key stamps it without a clock read of its own.
     */
    public void tickClock() {
        cachedLru = wallLruClock();
    }

    /** The LRU clock: seconds since this keyspace was created, as of the last {@link #tickClock()}. */
    int lruClock() {
        int c = cachedLru;
        return c >= 0 ? c : wallLruClock();
    }

    private int wallLruClock() {
        return (int) (System.currentTimeMillis() / 1000 - startSeconds);
    }

    /** Selects what entries' access stamps track: LFU counters (true) or the LRU clock (false). */
    public void lfu(boolean on) {
        this.lfu = on;
    }

    public boolean lfu() {
        return lfu;
    }

    /**
     * Whether new string values may be Redis's shared integers 0..9999 (refcount INT_MAX): Redis's
     * canUseSharedObject, false while a maxmemory LRU/LFU policy needs a per-key access clock. Decided
     * when a value is stored, as in Redis: a later policy change leaves existing values as they were.
     */
    public void sharedIntegers(boolean on) {
        this.sharedIntegers = on;
    }

    /** The {@link Entry#stringMark() string mark} of a value stored now. */
    int initialStringMark() {
        return sharedIntegers ? Entry.STRING_DERIVED : Entry.STRING_UNSHARED;
    }

    /**
     * LRU clocks of Redis's shared integer objects 0..9999: a key holding one reports the shared object's
     * idle time (any key's access refreshes it; never accessed: since the start), as in Redis.
     */
    private final int[] sharedLru = new int[SHARED_INTEGERS];
    private static final int SHARED_INTEGERS = 10_000;

    /** The shared integer an entry's value is (a {@link Entry#STRING_DERIVED} string "0".."9999"), or -1. */
    private static int sharedInteger(Entry e) {
        return sharedInteger(e.storedValue(), e.stringMark());
    }

    /**
     * {@link #sharedInteger(Entry)} of a value as {@link Entry#storedValue()} gave it (a {@code byte[]}, an entry
     * holding its string, or a collection) and its entry's mark: reads only that value, so a reader without the
     * lock may call it on a value it took once.
     */
    private static int sharedInteger(Object stored, int mark) {
        if (mark != Entry.STRING_DERIVED) {
            return -1;
        }
        int len;
        if (stored instanceof byte[] b) {
            len = b.length;
        } else if (stored instanceof InlineStringEntry s) {
            len = s.valueLength(); // read in place: a GET's touch must not copy a value held in the entry
        } else {
            return -1;
        }
        if (len == 0 || len > 4) {
            return -1;
        }
        int v = 0;
        for (int i = 0; i < len; i++) {
            int c = stored instanceof byte[] b ? b[i] & 0xff : ((InlineStringEntry) stored).valueByte(i);
            if (c < '0' || c > '9' || (i == 0 && c == '0' && len > 1)) {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    /** Records an access to an entry (a read that is not NOTOUCH); the caller holds its segment lock. */
    public void touch(Entry e) {
        if (!lfu) {
            int shared = sharedInteger(e);
            if (shared >= 0) {
                sharedLru[shared] = lruClock(); // a benign race between stripes: both write "now"
                return;
            }
        }
        e.access(lfu ? Lfu.touched(e.access(), minutes()) : lruClock());
    }

    /**
     * {@link #touch} for a reader without the segment lock ({@link OptimisticReads}), given the value it took and
     * validated: true when done, false when the access would change the entry itself (an LFU counter, an LRU stamp
     * older than the clock), which only the lock's holder may do.
     */
    boolean touchWithoutLock(Entry e, Object stored) {
        if (lfu) {
            return false;
        }
        int now = lruClock();
        int shared = sharedInteger(stored, e.stringMark());
        if (shared >= 0) {
            sharedLru[shared] = now; // as touch: a benign race, every writer writes "now"
            return true;
        }
        return e.access() == now;
    }

    /** The access stamp of a new entry. */
    int initialAccess() {
        return lfu ? Lfu.initial(minutes()) : lruClock();
    }

    /** OBJECT FREQ: the entry's LFU counter after decay (meaningful under an LFU policy). */
    public int lfuCounter(Entry e) {
        return Lfu.counter(e.access(), minutes());
    }

    private static long minutes() {
        return System.currentTimeMillis() / 60_000;
    }

    /**
     * Redis's objectSetLRUOrLFU with an idle time (RESTORE IDLETIME, an RDB's idle field): a shared integer's
     * clock is the shared object's, so setting it sets every key holding that integer.
     */
    public void setIdle(Entry e, long idleSeconds) {
        int stamp = (int) Math.max(Entry.MIN_STAMP, lruClock() - idleSeconds);
        int shared = lfu ? -1 : sharedInteger(e);
        if (shared >= 0) {
            sharedLru[shared] = stamp;
        } else {
            e.access(stamp);
        }
    }

    /** Seconds since a stamp taken from {@link #lruClock()} (OBJECT IDLETIME). */
    public long idleSeconds(Entry e) {
        int shared = lfu ? -1 : sharedInteger(e);
        return Math.max(0, lruClock() - (shared >= 0 ? sharedLru[shared] : e.access()));
    }

    public int nowClock() {
        return lruClock();
    }
}
