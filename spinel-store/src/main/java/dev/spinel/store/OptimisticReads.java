package dev.spinel.store;

/**
 * Single-key reads without the segment lock (GET's path): the lookup runs between two reads of the
 * segment's {@link SegmentLock} version and counts only when no lock holder came in between, so the answer is
 * the one a locked read would have given at that moment. Anything a locked read would change is left to it:
 * the caller takes the lock when {@link #read} returns {@link #LOCK} (a lock holder, a snapshot's pending
 * copy, an expired key to delete, an access stamp to move, a chain changing under the walk).
 *
 * <p>What may be used after the read is only what it returned: a string's {@code byte[]} (never modified once
 * stored; a {@link GrowableString}, changed in place, is read under the lock) or an entry holding its string in final fields; an entry's mutable fields may have changed since.
 *
 * <p>Thread-safety: stateless; any thread, holding no lock or any.
 */
public final class OptimisticReads {
    /** The answer "take the lock and read again". */
    public static final Object LOCK = new Object();
    /** Entries walked in one chain before giving up: a racy walk could meet a chain being relinked by a resize. */
    private static final int MAX_WALK = 64;

    private OptimisticReads() {
    }

    /**
     * The key's value as {@link Entry#storedValue()} gives it ({@code byte[]}, an {@link Entry} holding a short
     * string, or a collection), {@code null} when there is no live key, or {@link #LOCK}. {@code now} is the
     * time expiry is judged by; {@code touch}: the read counts as an access (not NOTOUCH).
     */
    public static Object read(Segment seg, byte[] buf, int off, int len, int hash, long now, boolean touch) {
        SegmentLock lock = seg.lock;
        long v = lock.version();
        if ((v & 1) != 0) {
            return LOCK;
        }
        Entry[] t = seg.table;
        if (seg.pending != null) {
            return LOCK; // a snapshot copies chunks on first touch: only under the lock
        }
        Entry e = t == null ? null : find(t, buf, off, len, hash);
        if (e == LOCK_ENTRY) {
            return LOCK;
        }
        Object stored = null;
        if (e != null) {
            if (e.isExpired(now)) {
                return LOCK; // deleted, or kept on a replica: the locked path decides and notifies
            }
            stored = e.storedValue();
            if (stored instanceof GrowableString) {
                return LOCK; // changed in place: only a locked read sees it whole
            }
        }
        if (!lock.validate(v)) {
            return LOCK;
        }
        if (e != null && touch && !seg.database().keyspace().touchWithoutLock(e, stored)) {
            return LOCK;
        }
        return stored;
    }

    /** Marks a walk that went on too long (a sentinel, never in a table). */
    private static final Entry LOCK_ENTRY = new ArrayKeyEntry(new byte[0], null);

    private static Entry find(Entry[] t, byte[] buf, int off, int len, int hash) {
        Entry e = t[hash & (t.length - 1)];
        int walked = 0;
        if (len <= InlineKeyEntry.MAX_LENGTH) {
            long p0 = InlineKeyEntry.pack0(buf, off, len);
            long p1 = InlineKeyEntry.pack1(buf, off, len);
            int p2 = InlineKeyEntry.pack2(buf, off, len);
            long p3 = InlineKeyEntry.pack3(buf, off, len);
            for (; e != null; e = e.next) {
                if (e instanceof InlineKeyEntry k && k.keyIs(p0, p1, p2, p3)) {
                    return e;
                }
                if (++walked == MAX_WALK) {
                    return LOCK_ENTRY;
                }
            }
            return null;
        }
        for (; e != null; e = e.next) {
            if (e instanceof ArrayKeyEntry k && k.keyIs(buf, off, len)) {
                return e;
            }
            if (++walked == MAX_WALK) {
                return LOCK_ENTRY;
            }
        }
        return null;
    }
}
