package dev.spinel.store;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * One lock stripe of a {@link Database}: a chained hash table of {@link Entry} with power-of-two
 * buckets, resized all at once (a stripe holds 1/64 of a database, so a resize is short).
 *
 * <p>Snapshots without fork: see {@link CopyOnWriteTable}, which holds the buckets.
 *
 * <p>Iteration for SCAN uses Redis's reverse-binary cursor over the bucket index, so every key
 * present for a whole scan is returned at least once even when the table grows or shrinks between
 * calls.
 *
 * <p>Thread-safety: every method requires the caller to hold this segment's lock ({@link #lock()}).
 * Entries, and the values inside them, are guarded by the same lock, which {@link OptimisticReads} validates instead.
 */
public class Segment extends CopyOnWriteTable {
    private static final int MIN_CAPACITY = 8;
    /**
     * Average entries per bucket above which the table doubles. Two, not Redis's one: comparing an inline entry
     * touches no other object, so a second entry in a chain costs a few word comparisons, while each key's share
     * of the bucket array halves (docs/memory.md, step 3).
     */
    static final int MAX_LOAD = 2;
    /** The table shrinks when it holds fewer than one key per {@value #SHRINK_BUCKETS_PER_KEY} buckets. */
    static final int SHRINK_BUCKETS_PER_KEY = 4;
    /** Buckets per copy-on-write chunk of a snapshot capture (up to ~64 keys at a load of {@value #MAX_LOAD}). */
    public static final int CAPTURE_CHUNK_BUCKETS = 32;
    /**
     * Heap bytes of bucket slots per key, for memory accounting: 8-byte references at 0.5 to {@value #MAX_LOAD}
     * keys per bucket, about 1.4 on average over a table's growth, so ~6 bytes.
     */
    static final int SLOT_OVERHEAD = 6;

    final SegmentLock lock = new SegmentLock(); // package-private for OptimisticReads
    private final Database owner;
    final int index;
    private int size;
    private int volatileCount;
    private long memory;
    /** Where active expiry's next step starts ({@link SegmentWalks#expireStep}). */
    int expireCursor;

    Segment(Database owner, int index) {
        this.owner = owner;
        this.index = index;
    }

    public void lock() {
        lock.lock();
    }

    public void unlock() {
        lock.unlock();
    }

    public boolean tryLock() {
        return lock.tryLock();
    }

    /** Waits for the lock until {@code deadlineNanos} (System.nanoTime()); false when it is still held then. */
    public boolean tryLockUntil(long deadlineNanos) {
        try {
            return lock.tryLock(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Position of this segment in its database (0 .. {@link Database#SEGMENTS} - 1). */
    public int index() {
        return index;
    }


    public boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    public Database database() {
        return owner;
    }

    public int size() {
        return size;
    }

    public int volatileCount() {
        return volatileCount;
    }

    public long memory() {
        return memory;
    }

    /** Adds {@code delta} bytes to this segment's accounted memory (a value grew or shrank in place). */
    public void adjustMemory(long delta) {
        memory += delta;
    }

    // ---------------------------------------------------------------- lookup

    /**
     * The live entry for the key, or {@code null}; an expired entry is deleted on the way (lazy expiry), unless
     * deletions are suspended ({@link Keyspace#expiryDeletesSuspended}).
     */
    public Entry get(byte[] buf, int off, int len, int hash, long now) {
        Entry e = find(buf, off, len, hash);
        if (e != null && e.isExpired(now)) {
            if (owner.expiryDeletesSuspended(now)) {
                return null;
            }
            removeEntry(e);
            owner.expired(e);
            return null;
        }
        return e;
    }

    /**
     * A read's lookup: as {@link #get}, but while the keyspace does no lazy expiry ({@link Keyspace#lazyExpiry},
     * a replica) or deletions are suspended (a pause), an expired entry is reported missing and kept, as Redis's replica
     * keeps it for its master's DEL.
     */
    public Entry read(byte[] buf, int off, int len, int hash, long now) {
        Entry e = find(buf, off, len, hash);
        if (e != null && e.isExpired(now)) {
            if (owner.keyspace().lazyExpiry() && !owner.expiryDeletesSuspended(now)) {
                removeEntry(e);
                owner.expired(e);
            }
            return null;
        }
        return e;
    }

    /** The entry for the key whether expired or not (for code that must see the raw state). */
    public Entry find(byte[] buf, int off, int len, int hash) {
        Entry[] t = table;
        if (t == null) {
            return null;
        }
        if (pending != null) {
            captureBucket(hash & (t.length - 1));
        }
        Entry e = t[hash & (t.length - 1)];
        if (len <= InlineKeyEntry.MAX_LENGTH) {
            // short keys are always inline: the probe is packed once, each entry compared by three words
            long p0 = InlineKeyEntry.pack0(buf, off, len);
            long p1 = InlineKeyEntry.pack1(buf, off, len);
            int p2 = InlineKeyEntry.pack2(buf, off, len);
            long p3 = InlineKeyEntry.pack3(buf, off, len);
            for (; e != null; e = e.next) {
                if (e instanceof InlineKeyEntry k && k.keyIs(p0, p1, p2, p3)) {
                    return e;
                }
            }
            return null;
        }
        for (; e != null; e = e.next) {
            if (e instanceof ArrayKeyEntry k && k.keyIs(buf, off, len)) {
                return e;
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- mutation

    /**
     * Stores {@code value} under the key, replacing any value and time to live; {@code expireAt} is
     * absolute Unix ms or -1. Returns the entry now holding the key.
     */
    public Entry put(byte[] key, int hash, Object value, long expireAt) {
        // an overwrite is not a new key (no "new" notice); commands overwrite through replaceValue
        return find(key, 0, key.length, hash) != null ? putQuietly(key, hash, value, expireAt)
                : insert(key, hash, value, expireAt);
    }

    /** {@link #put} for loaders (RDB, AOF, RESTORE of a snapshot): no "new key" notice to the listener. */
    public Entry putQuietly(byte[] key, int hash, Object value, long expireAt) {
        Entry old = find(key, 0, key.length, hash);
        if (old != null) {
            removeEntry(old, hash);
        }
        return insertQuietly(key, hash, value, expireAt);
    }

    /** Adds a key the caller knows is absent; the keyspace's listener hears of the new key. */
    public Entry insert(byte[] key, int hash, Object value, long expireAt) {
        Entry e = insertQuietly(key, hash, value, expireAt);
        owner.added(e);
        return e;
    }

    /**
     * {@link #insert(byte[], int, Object, long)} of the key {@code buf[off, off + len)}: a key short enough to be
     * held inline is never copied to an array of its own.
     */
    public Entry insert(byte[] buf, int off, int len, int hash, Object value, long expireAt) {
        Entry e = len <= InlineKeyEntry.MAX_LENGTH
                ? InlineKeyEntry.of(buf, off, len, value, expireAt)
                : ArrayKeyEntry.of(Arrays.copyOfRange(buf, off, off + len), value, expireAt);
        add(e, hash, expireAt);
        owner.added(e);
        return e;
    }

    /**
     * {@link #insert(byte[], int, int, int, Object, long)} of the string {@code vbuf[voff, voff + vlen)} (SET's
     * path): a short string of a key of up to {@link InlineKeyEntry#MAX_LENGTH} bytes is packed into the entry
     * straight from the request, with no array of its own; any other is copied to one.
     */
    public Entry insertString(byte[] buf, int off, int len, int hash, byte[] vbuf, int voff, int vlen, long expireAt) {
        if (!InlineStringEntry.fits(len, vlen)) {
            return insert(buf, off, len, hash, Arrays.copyOfRange(vbuf, voff, voff + vlen), expireAt);
        }
        return addNew(InlineStringEntry.of(buf, off, len, vbuf, voff, vlen, expireAt), hash, expireAt);
    }

    /** Links a new entry made outside this class (its key not present), as {@link #insert} does. */
    Entry addNew(Entry e, int hash, long expireAt) {
        add(e, hash, expireAt);
        owner.added(e);
        return e;
    }

    private Entry insertQuietly(byte[] key, int hash, Object value, long expireAt) {
        Entry e = key.length <= InlineKeyEntry.MAX_LENGTH
                ? InlineKeyEntry.of(key, 0, key.length, value, expireAt)
                : ArrayKeyEntry.of(key, value, expireAt);
        add(e, hash, expireAt);
        return e;
    }

    private void add(Entry e, int hash, long expireAt) {
        if (expireAt >= 0) {
            volatileCount++;
        }
        e.access(owner.clock());
        e.stringMark(owner.stringMark());
        link(e, hash);
        linked(e, hash);
        size++;
        memory += SLOT_OVERHEAD + e.footprint() + e.valueFootprint();
        if (size > MAX_LOAD * table.length) {
            resize(table.length * 2);
        }
    }

    /**
     * Replaces the value of an existing entry, keeping its time to live and access stamp; its string mark is that
     * of a new value. Returns the entry now holding the key: a new one when the value is, or becomes, a string
     * held in the entry's own fields ({@link InlineStringEntry}), whose fields never change (a snapshot may hold
     * the old entry as its copy of the old value); the caller uses it, not {@code e}, from then on.
     */
    public Entry replaceValue(Entry e, Object value) {
        Object old = e.ref();
        owner.overwritten(old, value);
        if (e instanceof InlineKeyEntry k && (e instanceof InlineStringEntry || k.holdsInline(value))) {
            Entry n = k.withValue(value);
            n.stringMark(owner.stringMark());
            replaceEntry(e, n);
            memory += n.footprint() + n.valueFootprint() - e.footprint() - e.valueFootprint();
            return n;
        }
        memory += Sizes.value(value) - e.valueFootprint();
        e.ref(value);
        e.stringMark(owner.stringMark());
        return e;
    }

    /**
     * {@link #replaceValue} with the string {@code vbuf[voff, voff + vlen)} (SET's path): packed into the new entry
     * straight from the request when it is held inline, else copied to an array of its own.
     */
    public Entry replaceString(Entry e, byte[] vbuf, int voff, int vlen) {
        if (e instanceof InlineKeyEntry k && InlineStringEntry.fits(k.keyLength(), vlen)) {
            return swapString(e, InlineStringEntry.of(k.k0, k.k1, k.k2, k.k3(), vbuf, voff, vlen, e.expireAt()));
        }
        return replaceValue(e, Arrays.copyOfRange(vbuf, voff, voff + vlen));
    }

    /**
     * Puts {@code n}, a new entry holding {@code e}'s key, its expiry and a string in its own fields, in place of
     * {@code e}, as {@link #replaceValue} does; returns {@code n}.
     */
    Entry swapString(Entry e, InlineStringEntry n) {
        owner.overwritten(e.ref(), null); // a collection overwritten by a string: lazyfree's count, as replaceValue
        n.access = e.access;
        n.stringMark(owner.stringMark());
        replaceEntry(e, n);
        memory += n.footprint() - e.footprint() - e.valueFootprint();
        return n;
    }

    /**
     * Sets or clears ({@code expireAt < 0}) the time to live of an entry; returns the entry now
     * holding the key (a different object when the entry changes between volatile and persistent).
     */
    public Entry setExpire(Entry e, long expireAt) {
        boolean wasVolatile = e.expireAt() >= 0;
        if (wasVolatile && expireAt >= 0) {
            e.expireAt(expireAt);
            return e;
        }
        if (!wasVolatile && expireAt < 0) {
            return e;
        }
        Entry n = e.withExpire(expireAt);
        replaceEntry(e, n);
        volatileCount += expireAt >= 0 ? 1 : -1;
        memory += n.footprint() - e.footprint();
        return n;
    }

    public boolean remove(byte[] buf, int off, int len, int hash) {
        Entry e = find(buf, off, len, hash);
        if (e == null) {
            return false;
        }
        removeEntry(e, hash);
        return true;
    }

    public void removeEntry(Entry e) {
        removeEntry(e, e.keyHash());
    }

    private void removeEntry(Entry e, int hash) {
        Entry[] t = table;
        int b = hash & (t.length - 1);
        if (pending != null) {
            captureBucket(b);
        }
        Entry prev = null;
        for (Entry c = t[b]; c != null; prev = c, c = c.next) {
            if (c == e) {
                if (prev == null) {
                    t[b] = c.next;
                } else {
                    prev.next = c.next;
                }
                size--;
                unlinked(e, hash);
                if (e.expireAt() >= 0) {
                    volatileCount--;
                }
                memory -= SLOT_OVERHEAD + e.footprint() + e.valueFootprint();
                if (size == 0) {
                    memory = 0;
                }
                if (t.length > MIN_CAPACITY && size < t.length / SHRINK_BUCKETS_PER_KEY) {
                    resize(capacityFor(size));
                }
                return;
            }
        }
        throw new IllegalStateException("entry not in its segment");
    }

    /** A key was added (hook for {@link SlotIndexedSegment}; called under the lock). */
    void linked(Entry e, int hash) {
    }

    /** A key was removed (hook for {@link SlotIndexedSegment}; called under the lock). */
    void unlinked(Entry e, int hash) {
    }

    /** Removes every key. */
    public void clear() {
        capturePending();
        table = null;
        size = 0;
        volatileCount = 0;
        memory = 0;
        expireCursor = 0;
    }

    /** Exchanges contents with the same-index segment of another database (SWAPDB). */
    void swapContents(Segment other) {
        capturePending();
        other.capturePending();
        Entry[] t = table;
        table = other.table;
        other.table = t;
        int s = size;
        size = other.size;
        other.size = s;
        int v = volatileCount;
        volatileCount = other.volatileCount;
        other.volatileCount = v;
        long m = memory;
        memory = other.memory;
        other.memory = m;
        expireCursor = 0;
        other.expireCursor = 0;
    }

    private void link(Entry e, int hash) {
        if (table == null) {
            table = new Entry[MIN_CAPACITY];
        }
        int b = hash & (table.length - 1);
        if (pending != null) {
            captureBucket(b);
        }
        e.next = table[b];
        table[b] = e;
    }

    private void replaceEntry(Entry old, Entry n) {
        Entry[] t = table;
        int b = old.keyHash() & (t.length - 1);
        if (pending != null) {
            captureBucket(b);
        }
        Entry prev = null;
        for (Entry c = t[b]; c != null; prev = c, c = c.next) {
            if (c == old) {
                n.next = old.next;
                if (prev == null) {
                    t[b] = n;
                } else {
                    prev.next = n;
                }
                return;
            }
        }
        throw new IllegalStateException("entry not in its segment");
    }

    /**
     * The table a shrink leaves for {@code size} keys: about one key per bucket (0.5 to 1), so the next
     * grow needs the keys to double at least and the next shrink to quarter (hysteresis against flapping).
     */
    static int capacityFor(int size) {
        return Math.max(MIN_CAPACITY, Integer.highestOneBit(Math.max(size, 1)) * 2);
    }

    /** Buckets of the table (tests). */
    int capacity() {
        return table == null ? 0 : table.length;
    }

    private void resize(int capacity) {
        capturePending(); // chunks are ranges of the table as armed: copy the rest before rehashing
        Entry[] old = table;
        Entry[] t = new Entry[capacity];
        int mask = capacity - 1;
        for (Entry head : old) {
            for (Entry e = head; e != null; ) {
                Entry next = e.next;
                int b = e.keyHash() & mask;
                e.next = t[b];
                t[b] = e;
                e = next;
            }
        }
        table = t;
        expireCursor = 0;
    }

    // ---------------------------------------------------------------- iteration

    /** Receives the entries of one SCAN step. */
    @FunctionalInterface
    public interface EntryVisitor {
        void visit(Entry e);
    }

    /**
     * Visits the entries of the bucket at reverse-binary cursor {@code cursor} (and, as Redis does,
     * of as many further buckets as needed for {@code minEntries}), and returns the next cursor;
     * 0 means this segment is done.
     */
    public long scan(long cursor, int minEntries, EntryVisitor visitor) {
        return SegmentWalks.scan(this, cursor, minEntries, visitor);
    }


    /** A uniformly-chosen bucket's random entry, or {@code null} if the segment is empty. */
    public Entry randomEntry(RandomGenerator rnd) {
        return SegmentWalks.randomEntry(this, rnd);
    }

    /**
     * One step of active expiry: examines up to {@code maxBuckets} buckets from where the last step
     * stopped and deletes the expired keys. Returns the number of keys deleted.
     */
    int expireStep(long now, int maxBuckets) {
        return SegmentWalks.expireStep(this, now, maxBuckets);
    }
}
