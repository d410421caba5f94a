package dev.spinel.server.commands.key;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.stats.LazyFree;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.OptimisticReads;
import dev.spinel.store.Segment;

/**
 * Key lookups shared by the command families: the stripe of a key argument, and reads that count
 * keyspace hits and misses and refresh the access clock as Redis's {@code lookupKeyRead} does.
 * Callers hold the segment lock around every call but {@link #replyStringWithoutLock}'s.
 */
public final class Keys {
    private Keys() {
    }

    public static int hash(Args a, int i) {
        return KeyHash.hash(a.buffer(), a.offset(i), a.length(i));
    }

    /** The live entry of key argument {@code i} for a read command (hit/miss counted), or {@code null}. */
    public static Entry read(Session s, Segment seg, Args a, int i, int hash) {
        Entry e = seg.read(a.buffer(), a.offset(i), a.length(i), hash, s.lookupNow());
        if (e == null) {
            s.engine().stats().keyspaceMisses.increment();
            s.notify(Notifications.KEY_MISS, "keymiss", a, i); // lookupKeyRead's keymiss event
            return null;
        }
        s.engine().stats().keyspaceHits.increment();
        if (!s.noTouch()) {
            s.engine().keyspace().touch(e);
        }
        return e;
    }

    /**
     * GET's reply for key argument {@code i} read without the segment lock ({@link OptimisticReads}), counted and
     * notified as {@link #read} does; false, having done nothing, when the caller must read under the lock.
     */
    public static boolean replyStringWithoutLock(Session s, Segment seg, Args a, int i, int hash) {
        Object v = OptimisticReads.read(seg, a.buffer(), a.offset(i), a.length(i), hash, s.lookupNow(), !s.noTouch());
        if (v == OptimisticReads.LOCK) {
            return false;
        }
        if (v == null) {
            s.engine().stats().keyspaceMisses.increment();
            s.notify(Notifications.KEY_MISS, "keymiss", a, i);
            s.out().nullBulk();
            return true;
        }
        s.engine().stats().keyspaceHits.increment();
        if (v instanceof byte[] b) {
            s.out().bulk(b);
        } else if (v instanceof Entry e) {
            replyString(s.out(), e); // a string held in the entry's final fields
        } else {
            throw Errors.WRONGTYPE;
        }
        return true;
    }

    /**
     * The live entry of key argument {@code i} for a write command (no hit/miss accounting), or {@code null}.
     * As Redis's lookupKeyWrite, it refreshes the key's access clock (OBJECT IDLETIME after EXPIRE, HSET, APPEND...).
     */
    public static Entry write(Session s, Segment seg, Args a, int i, int hash) {
        Entry e = seg.get(a.buffer(), a.offset(i), a.length(i), hash, s.lookupNow());
        if (e != null && !s.noTouch()) {
            s.engine().keyspace().touch(e);
        }
        return e;
    }

    /**
     * Replies the string value of an entry as a bulk string, straight from the entry (a short string held in
     * the entry's fields is not copied to an array first), or throws WRONGTYPE before writing anything.
     */
    public static void replyString(ReplyBuffer out, Entry e) {
        if (!e.isString()) {
            throw Errors.WRONGTYPE;
        }
        int at = out.bulkSpace(e.stringLength()); // may grow the buffer: take the array after it
        e.copyString(out.array(), at);
    }

    /** The length of an entry's string value, or WRONGTYPE. */
    public static int stringLength(Entry e) {
        if (!e.isString()) {
            throw Errors.WRONGTYPE;
        }
        return e.stringLength();
    }

    /**
     * The string value of an entry, or WRONGTYPE: a copy for a short string held in the entry's fields, so the
     * hot reads ({@link #replyString}) do not call this.
     */
    public static byte[] string(Entry e) {
        if (e.value() instanceof byte[] b) {
            return b;
        }
        throw Errors.WRONGTYPE;
    }

    /**
     * The string value's bytes to read in place under the segment's lock, or WRONGTYPE: the value's own array (a
     * grown string's is longer than the string: read only its first {@link #stringLength} bytes), or a copy of a
     * short string held in the entry's fields. Unlike {@link #string}, never a copy of a grown string, which may be
     * hundreds of MB for a range of a few bytes (BITCOUNT, BITPOS).
     */
    public static byte[] stringInPlace(Entry e) {
        if (!e.isString()) {
            throw Errors.WRONGTYPE;
        }
        return e.stringBytes(e.stringLength() <= Entry.MAX_INLINE_STRING ? new byte[Entry.MAX_INLINE_STRING] : null);
    }

    /**
     * A value a command deleted as a side effect (Redis's dbDelete: the destination of RENAME, COPY REPLACE,
     * RESTORE REPLACE, an empty *STORE result, a set SPOP empties) or a temporary one it dropped (SUNION's and
     * SDIFF's result): freed asynchronously under lazyfree-lazy-server-del, which INFO's lazyfreed_objects
     * counts. Overwrites are counted by the keyspace's listener.
     */
    public static void serverDeleted(Session s, Object value) {
        if (s.engine().config().lazyfreeLazyServerDel.value()) {
            LazyFree.freed(s.engine().stats(), value);
        }
    }

    /** As {@link #serverDeleted}, for a value of the given free effort Spinel changed in place instead. */
    public static void serverDeletedEffort(Session s, long effort) {
        if (s.engine().config().lazyfreeLazyServerDel.value()) {
            LazyFree.freedEffort(s.engine().stats(), effort);
        }
    }
}
