package dev.spinel.server.commands.key;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.TypedValue;
import dev.spinel.store.types.SetValue;
import dev.spinel.store.types.ZSetValue;

/**
 * Typed access to set and sorted-set keys (WRONGTYPE on mismatch) and the write-back rules the
 * set/zset commands share: a collection left empty is deleted, a *STORE destination is replaced (its
 * time to live dropped) or deleted when the result is empty. Callers hold the key's segment lock.
 */
public final class SetKeys {
    private SetKeys() {
    }

    public static SetValue set(Entry e) {
        if (e == null) {
            return null;
        }
        if (e.value() instanceof SetValue v) {
            return v;
        }
        throw Errors.WRONGTYPE;
    }

    public static ZSetValue zset(Entry e) {
        if (e == null) {
            return null;
        }
        if (e.value() instanceof ZSetValue v) {
            return v;
        }
        throw Errors.WRONGTYPE;
    }

    /** After an in-place change: accounts the size change and deletes the key if now empty. */
    public static void afterChange(Segment seg, Entry e, TypedValue v, long memoryBefore) {
        seg.adjustMemory(v.memoryUsage() - memoryBefore);
        if (v.size() == 0) {
            seg.removeEntry(e);
        }
    }

    /** Stores {@code value} at key argument {@code i} (deleting the key when null or empty); true if the key changed. */
    static boolean store(Session s, Args a, int i, TypedValue value) {
        int h = Keys.hash(a, i);
        Segment seg = s.db().segment(h);
        Entry e = Keys.write(s, seg, a, i, h);
        if (value == null || value.size() == 0) {
            if (e != null) {
                seg.removeEntry(e);
                Keys.serverDeleted(s, e.value());
                return true;
            }
            return false;
        }
        if (e == null) {
            seg.insert(a.copy(i), h, value, -1);
        } else {
            e = seg.replaceValue(e, value);
            seg.setExpire(e, -1);
        }
        // a stored sorted set feeds BZPOPMIN & co. waiting on the key (Redis's setKey → signalKeyAsReady)
        s.engine().blocking().signal(s.db(), a.buffer(), a.offset(i), a.length(i));
        return true;
    }

    /**
     * A *STORE command's result: stores it as {@link #store} does and announces {@code event} (class
     * {@code type}) when something was stored, or {@code del} when an empty result deleted the key, as
     * Redis's SINTERSTORE/ZUNIONSTORE/... do. Returns whether the key changed.
     */
    public static boolean storeResult(Session s, Args a, int i, TypedValue value, int type, String event) {
        boolean changed = store(s, a, i, value);
        if (value != null && value.size() > 0) {
            s.notify(type, event, a, i);
        } else if (changed) {
            s.notify(Notifications.GENERIC, "del", a, i);
        }
        return changed;
    }

    /** Locks the stripes of key arguments [from, to) with step 1 plus an optional extra key (-1: none). */
    public static void lockKeys(Session s, Args a, int from, int to, int extra) {
        var locks = s.locks();
        var db = s.db();
        if (extra >= 0) {
            locks.add(db, a.buffer(), a.offset(extra), a.length(extra));
        }
        for (int i = from; i < to; i++) {
            locks.add(db, a.buffer(), a.offset(i), a.length(i));
        }
        locks.lock();
    }

    /** The live entry of key argument {@code i} for a read, with its stripe already locked. */
    public static Entry read(Session s, Args a, int i) {
        int h = Keys.hash(a, i);
        return Keys.read(s, s.db().segment(h), a, i, h);
    }

    public static Entry write(Session s, Args a, int i) {
        int h = Keys.hash(a, i);
        return Keys.write(s, s.db().segment(h), a, i, h);
    }
}
