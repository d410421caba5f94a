package dev.spinel.server.commands.key;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.stats.LazyFree;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.StripeLocks;

/**
 * Generic key commands (Redis's db.c): DEL, UNLINK, EXISTS, TOUCH, TYPE, RANDOMKEY, DBSIZE. Registers
 * the rest of the family, which lives in {@link KeyTransferCommands} (RENAME, COPY, MOVE),
 * {@link DatabaseCommands} (SWAPDB, FLUSHDB, FLUSHALL), {@link ExpireCommands} (EXPIRE, TTL, PERSIST...),
 * {@link ScanCommands} (KEYS, SCAN) and {@link ObjectCommands} (OBJECT).
 *
 * <p>Thread-safety: stateless; each command holds the stripe locks of all its keys for its whole run,
 * so a multi-key command is atomic against every other command.
 */
public final class KeyCommands {
    private KeyCommands() {
    }

    public static void register(CommandTable t) {
        t.register("del", KeyCommands::del);
        t.register("unlink", KeyCommands::unlink);
        t.register("exists", KeyCommands::exists);
        t.register("touch", KeyCommands::touch);
        t.register("type", KeyCommands::type);
        t.register("randomkey", KeyCommands::randomkey);
        t.register("dbsize", KeyCommands::dbsize);
        KeyTransferCommands.register(t);
        DatabaseCommands.register(t);
        ExpireCommands.register(t);
        ScanCommands.register(t);
        ObjectCommands.register(t);
    }

    // DEL key [key ...]  and  UNLINK key [key ...] (values are freed by the GC, so both are "lazy")
    static void del(Session s, Args a) {
        delete(s, a, s.engine().config().lazyfreeLazyUserDel.value());
    }

    // UNLINK key [key ...]: DEL, counting the values Redis would free in the background (INFO lazyfreed_objects)
    static void unlink(Session s, Args a) {
        delete(s, a, true);
    }

    private static void delete(Session s, Args a, boolean lazy) {
        Database db = s.db();
        long n = 0;
        StripeLocks locks = lockKeys(s, db, a, 1);
        try {
            for (int i = 1; i < a.count(); i++) {
                int h = Keys.hash(a, i);
                Segment seg = db.segment(h);
                Entry e = Keys.write(s, seg, a, i, h);
                if (e != null) {
                    if (lazy) {
                        LazyFree.freed(s.engine().stats(), e.storedValue()); // a string held in its entry: no copy
                    }
                    seg.removeEntry(e);
                    s.notify(Notifications.GENERIC, "del", a, i);
                    n++;
                } else {
                    s.keyUnchanged(i); // Redis signals only the keys it deleted: WATCHes of absent keys hold
                }
            }
            s.dirty(n);
        } finally {
            locks.unlock();
        }
        s.out().integer(n);
    }

    // EXISTS key [key ...]  (a key named twice counts twice)
    static void exists(Session s, Args a) {
        Database db = s.db();
        long n = 0;
        StripeLocks locks = lockKeys(s, db, a, 1);
        try {
            for (int i = 1; i < a.count(); i++) {
                int h = Keys.hash(a, i);
                if (peek(s, db.segment(h), a, i, h) != null) {
                    n++;
                }
            }
        } finally {
            locks.unlock();
        }
        s.out().integer(n);
    }

    // TOUCH key [key ...]
    static void touch(Session s, Args a) {
        Database db = s.db();
        long n = 0;
        StripeLocks locks = lockKeys(s, db, a, 1);
        try {
            for (int i = 1; i < a.count(); i++) {
                int h = Keys.hash(a, i);
                if (Keys.read(s, db.segment(h), a, i, h) != null) {
                    n++;
                }
            }
        } finally {
            locks.unlock();
        }
        s.out().integer(n);
    }

    // TYPE key
    static void type(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        String name;
        seg.lock();
        try {
            Entry e = peek(s, seg, a, 1, h);
            name = e == null ? "none" : e.type().redisName();
        } finally {
            seg.unlock();
        }
        s.out().simple(name);
    }

    // RANDOMKEY
    static void randomkey(Session s, Args a) {
        byte[] key = s.db().randomKey(s.lookupNow());
        if (key == null) {
            s.out().nullBulk();
        } else {
            s.out().bulk(key);
        }
    }

    // DBSIZE
    static void dbsize(Session s, Args a) {
        s.out().integer(s.db().size());
    }

    /**
     * Locks the stripes of key arguments {@code from..count-1} of {@code db} together, in the global
     * order. The caller must call {@code unlock()} on the result in a finally block.
     */
    static StripeLocks lockKeys(Session s, Database db, Args a, int from) {
        StripeLocks locks = s.locks();
        try {
            for (int i = from; i < a.count(); i++) {
                locks.add(db, a.buffer(), a.offset(i), a.length(i));
            }
            locks.lock();
        } catch (RuntimeException | Error e) {
            locks.unlock();
            throw e;
        }
        return locks;
    }

    /**
     * Redis's {@code lookupKeyReadWithFlags(LOOKUP_NOTOUCH)}: the live entry (expired ones are deleted),
     * counted as a keyspace hit or miss (a miss is a keymiss event), without refreshing its access clock.
     */
    public static Entry peek(Session s, Segment seg, Args a, int i, int hash) {
        return peek(s, seg, a, i, hash, true);
    }

    /** {@link #peek}, with {@code notify} false as LOOKUP_NONOTIFY: no keymiss event (OBJECT). */
    public static Entry peek(Session s, Segment seg, Args a, int i, int hash, boolean notify) {
        Entry e = seg.read(a.buffer(), a.offset(i), a.length(i), hash, s.lookupNow());
        if (e == null) {
            s.engine().stats().keyspaceMisses.increment();
            if (notify) {
                s.notify(Notifications.KEY_MISS, "keymiss", a, i);
            }
        } else {
            s.engine().stats().keyspaceHits.increment();
        }
        return e;
    }
}
