package dev.spinel.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongConsumer;

/**
 * One of the keyspace's numbered databases: {@value #SEGMENTS} lock stripes chosen by the top bits
 * of the key hash. Single-key commands lock one stripe; multi-key commands lock their stripes in
 * index order through {@link StripeLocks}, so there is no global lock and no deadlock.
 *
 * <p>Thread-safety: the segment array is fixed; each segment guards its own keys. Methods here that
 * touch several segments lock them one at a time and document what they guarantee.
 */
public final class Database {
    public static final int SEGMENT_BITS = 6;
    public static final int SEGMENTS = 1 << SEGMENT_BITS;

    private final Keyspace keyspace;
    private final int index;
    private final Segment[] segments = new Segment[SEGMENTS];
    /** Keys by hash slot in cluster mode; null otherwise. */
    private final SlotIndex slots;

    Database(Keyspace keyspace, int index, boolean slotIndexed) {
        this.keyspace = keyspace;
        this.index = index;
        this.slots = slotIndexed ? new SlotIndex(this) : null;
        for (int i = 0; i < SEGMENTS; i++) {
            segments[i] = slotIndexed ? new SlotIndexedSegment(this, i, slots) : new Segment(this, i);
        }
    }

    /** The keys by hash slot (cluster mode), or null when this keyspace was built without the index. */
    public SlotIndex slotIndex() {
        return slots;
    }

    public int index() {
        return index;
    }

    public Keyspace keyspace() {
        return keyspace;
    }

    public Segment segment(int hash) {
        return segments[hash >>> (32 - SEGMENT_BITS)];
    }

    public Segment segmentAt(int i) {
        return segments[i];
    }

    /** Number of keys (including logically expired ones not yet collected, as Redis's DBSIZE). */
    public long size() {
        long n = 0;
        for (Segment s : segments) {
            s.lock();
            try {
                n += s.size();
            } finally {
                s.unlock();
            }
        }
        return n;
    }

    public long volatileCount() {
        long n = 0;
        for (Segment s : segments) {
            s.lock();
            try {
                n += s.volatileCount();
            } finally {
                s.unlock();
            }
        }
        return n;
    }

    public long memory() {
        long n = 0;
        for (Segment s : segments) {
            s.lock();
            try {
                n += s.memory();
            } finally {
                s.unlock();
            }
        }
        return n;
    }

    /** Removes every key; atomic (all stripes held together). Returns the number of keys removed. */
    public long clear() {
        return clear(n -> { });
    }

    /** Like {@link #clear()}; {@code whileLocked} receives the count before the stripes are released. */
    public long clear(LongConsumer whileLocked) {
        return clear(() -> { }, whileLocked);
    }

    /** Like {@link #clear(java.util.function.LongConsumer)}; {@code beforeClear} runs locked, before any key goes. */
    public long clear(Runnable beforeClear, LongConsumer whileLocked) {
        lockAll();
        try {
            beforeClear.run();
            long removed = clearLocked();
            whileLocked.accept(removed);
            return removed;
        } finally {
            unlockAll();
        }
    }

    /** Removes every key; the caller holds every stripe. Returns the number of keys removed. */
    long clearLocked() {
        long removed = 0;
        for (Segment s : segments) {
            removed += s.size();
            s.clear();
        }
        return removed;
    }

    public void lockAll() {
        for (Segment s : segments) {
            s.lock();
        }
    }

    public void unlockAll() {
        for (int i = SEGMENTS - 1; i >= 0; i--) {
            segments[i].unlock();
        }
    }

    /**
     * {@link #lockAll()} with a deadline (System.nanoTime()): false, holding nothing, when a stripe is still
     * held by another thread then (a command that does not end must not stop a shutdown for ever).
     */
    public boolean tryLockAllUntil(long deadlineNanos) {
        for (int i = 0; i < SEGMENTS; i++) {
            if (!segments[i].tryLockUntil(deadlineNanos)) {
                for (int k = i - 1; k >= 0; k--) {
                    segments[k].unlock();
                }
                return false;
            }
        }
        return true;
    }

    /**
     * Exchanges all keys with another database, their slot indexes too (both have one or neither: a slot-indexed
     * database's segments report to its own index, so the keys and the index must change hands together); the
     * caller holds every stripe of both.
     */
    void swapWith(Database other) {
        if ((slots == null) != (other.slots == null)) {
            throw new IllegalStateException("a slot-indexed database can only be swapped with another");
        }
        for (int i = 0; i < SEGMENTS; i++) {
            segments[i].swapContents(other.segments[i]);
        }
        if (slots != null) {
            slots.swapWith(other.slots);
        }
    }

    /**
     * One SCAN step over the whole database. The cursor holds the segment index in bits 40..49 and
     * that segment's reverse-binary bucket cursor below. Returns the next cursor (0 when done).
     */
    public long scan(long cursor, int count, Segment.EntryVisitor visitor) {
        int seg = (int) (cursor >>> 40);
        long bucketCursor = cursor & ((1L << 40) - 1);
        if (seg < 0 || seg >= SEGMENTS) {
            return 0;
        }
        int seen = 0;
        while (seg < SEGMENTS) {
            Segment s = segments[seg];
            int[] counter = {0};
            s.lock();
            long next;
            try {
                next = s.scan(bucketCursor, count - seen, e -> {
                    counter[0]++;
                    visitor.visit(e);
                });
            } finally {
                s.unlock();
            }
            seen += counter[0];
            if (next != 0) {
                return ((long) seg << 40) | next;
            }
            seg++;
            bucketCursor = 0;
            if (seen >= count && seg < SEGMENTS) {
                return (long) seg << 40;
            }
        }
        return 0;
    }

    /** A random live key, or {@code null} when the database is empty (RANDOMKEY). */
    public byte[] randomKey(long now) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 100_000; attempt++) {
            Segment s = pickNonEmpty(rnd);
            if (s == null) {
                return null;
            }
            s.lock();
            try {
                Entry e = s.randomEntry(rnd);
                if (e == null) {
                    continue;
                }
                if (e.isExpired(now)) {
                    if (!expiryDeletesSuspended(now)) {
                        s.removeEntry(e);
                        expired(e);
                    }
                    continue;
                }
                return e.key();
            } finally {
                s.unlock();
            }
        }
        return null;
    }

    private Segment pickNonEmpty(ThreadLocalRandom rnd) {
        List<Segment> nonEmpty = new ArrayList<>();
        long total = 0;
        for (Segment s : segments) {
            int n = s.size(); // racy read: only a weight, re-checked under the lock
            if (n > 0) {
                nonEmpty.add(s);
                total += n;
            }
        }
        if (total == 0) {
            return null;
        }
        long pick = rnd.nextLong(total);
        for (Segment s : nonEmpty) {
            pick -= s.size();
            if (pick < 0) {
                return s;
            }
        }
        return nonEmpty.get(nonEmpty.size() - 1);
    }

    /** Runs active expiry over all segments within a bucket budget; returns keys deleted. */
    int activeExpire(long now, int bucketsPerSegment) {
        int deleted = 0;
        for (Segment s : segments) {
            if (s.volatileCount() == 0 || !s.tryLock()) {
                continue; // racy pre-check; a busy stripe is visited next cycle
            }
            try {
                deleted += s.expireStep(now, bucketsPerSegment);
            } finally {
                s.unlock();
            }
        }
        return deleted;
    }

    /** A command's overwrite of a value: the listener hears of a collection replaced (not of a string's overwrite). */
    void overwritten(Object old, Object value) {
        if (old instanceof TypedValue && old != value) {
            keyspace.overwritten(this, old);
        }
    }

    void expired(Entry e) {
        keyspace.expired(this, e);
    }

    boolean expiryDeletesSuspended(long now) {
        return keyspace.expiryDeletesSuspended(now);
    }

    void added(Entry e) {
        keyspace.added(this, e);
    }

    int clock() {
        return keyspace.initialAccess();
    }

    int stringMark() {
        return keyspace.initialStringMark();
    }
}
