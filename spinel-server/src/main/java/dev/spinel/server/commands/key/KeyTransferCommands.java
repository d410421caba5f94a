package dev.spinel.server.commands.key;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.StripeLocks;
import dev.spinel.store.TypedValue;

import java.util.Arrays;

/**
 * Commands that give a value a new name or a new database (Redis's db.c): RENAME, RENAMENX, COPY, MOVE.
 *
 * <p>Thread-safety: stateless; the stripes of the source and destination keys (in their databases)
 * are locked together in the global order for the whole command, so each is atomic.
 */
final class KeyTransferCommands {
    static final RedisError SAME_OBJECT = new RedisError("ERR source and destination objects are the same");
    /** Redis's getIntFromObjectOrReply for a number outside the 32-bit range. */
    static final RedisError INT_RANGE =
            new RedisError("ERR value is out of range, value must between -2147483648 and 2147483647");

    private KeyTransferCommands() {
    }

    static void register(CommandTable t) {
        t.register("rename", (s, a) -> rename(s, a, false));
        t.register("renamenx", (s, a) -> rename(s, a, true));
        t.register("copy", KeyTransferCommands::copy);
        t.register("move", KeyTransferCommands::move);
    }

    // RENAME key newkey  /  RENAMENX key newkey
    static void rename(Session s, Args a, boolean nx) {
        Database db = s.db();
        StripeLocks locks = KeyCommands.lockKeys(s, db, a, 1);
        try {
            int hs = Keys.hash(a, 1);
            Segment src = db.segment(hs);
            Entry e = Keys.write(s, src, a, 1, hs);
            if (e == null) {
                throw Errors.NO_SUCH_KEY;
            }
            if (a.length(1) == a.length(2) && Arrays.equals(a.buffer(), a.offset(1), a.offset(1) + a.length(1),
                    a.buffer(), a.offset(2), a.offset(2) + a.length(2))) {
                reply(s, nx, 0);
                return;
            }
            int hd = Keys.hash(a, 2);
            Segment dst = db.segment(hd);
            Entry old = Keys.write(s, dst, a, 2, hd);
            if (old != null) {
                if (nx) {
                    s.out().integer(0);
                    return;
                }
                dst.removeEntry(old);
                Keys.serverDeleted(s, old.value());
            }
            src.removeEntry(e);
            // The value object moves as is: it keeps its time to live and its access clock (as in Redis).
            Entry moved = dst.insert(a.copy(2), hd, e.value(), e.expireAt());
            moved.access(e.access());
            moved.stringMark(e.stringMark());
            s.engine().blocking().signal(db, a.buffer(), a.offset(2), a.length(2)); // Redis's dbAdd → signalKeyAsReady
            s.dirty(1);
            s.notify(Notifications.GENERIC, "rename_from", a, 1);
            s.notify(Notifications.GENERIC, "rename_to", a, 2);
            reply(s, nx, 1);
        } finally {
            locks.unlock();
        }
    }

    private static void reply(Session s, boolean nx, int n) {
        if (nx) {
            s.out().integer(n);
        } else {
            s.out().ok();
        }
    }

    // COPY source destination [DB destination-db] [REPLACE]
    static void copy(Session s, Args a) {
        boolean replace = false;
        int dbIndex = s.dbIndex();
        for (int i = 3; i < a.count(); i++) {
            if (a.is(i, "REPLACE")) {
                replace = true;
            } else if (a.is(i, "DB") && i + 1 < a.count()) {
                long v;
                try {
                    v = a.parseLong(++i);
                } catch (NumberFormatException e) {
                    throw Errors.NOT_INTEGER;
                }
                    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                    throw INT_RANGE;
                }
                if (v < 0 || v >= s.engine().keyspace().databases()) {
                    throw Errors.DB_INDEX;
                }
                dbIndex = (int) v;
            } else {
                throw Errors.SYNTAX;
            }
        }
        if (s.engine().config().clusterEnabled.value() && (s.dbIndex() != 0 || dbIndex != 0)) {
            throw new RedisError("ERR Copying to another database is not allowed in cluster mode");
        }
        Database srcDb = s.db();
        Database dstDb = s.engine().keyspace().db(dbIndex);
        if (srcDb == dstDb && a.length(1) == a.length(2) && Arrays.equals(a.buffer(), a.offset(1),
                a.offset(1) + a.length(1), a.buffer(), a.offset(2), a.offset(2) + a.length(2))) {
            throw SAME_OBJECT;
        }
        int hs = Keys.hash(a, 1);
        int hd = Keys.hash(a, 2);
        StripeLocks locks = s.locks();
        try {
            locks.add(srcDb.segment(hs)).add(dstDb.segment(hd)).lock();
            Segment src = srcDb.segment(hs);
            Entry e = Keys.read(s, src, a, 1, hs);
            if (e == null) {
                s.out().integer(0);
                return;
            }
            Segment dst = dstDb.segment(hd);
            Entry old = Keys.write(s, dst, a, 2, hd);
            if (old != null) {
                if (!replace) {
                    s.out().integer(0);
                    return;
                }
                dst.removeEntry(old);
                Keys.serverDeleted(s, old.value());
            }
            Entry copy = dst.insert(a.copy(2), hd, duplicate(e.value()), e.expireAt());
            // dupStringObject keeps the encoding but makes a private object: a shared integer's copy is not shared
            copy.stringMark(e.stringMark() == Entry.STRING_DERIVED ? Entry.STRING_UNSHARED : e.stringMark());
            s.engine().blocking().signal(dstDb, a.buffer(), a.offset(2), a.length(2));
            s.dirty(1);
            s.notify(Notifications.GENERIC, "copy_to", a.copy(2), dbIndex);
            s.out().integer(1);
        } finally {
            locks.unlock();
        }
    }

    /** A deep copy of a stored value: the copy must not share mutable state with the original. */
    private static Object duplicate(Object value) {
        if (value instanceof byte[] b) {
            return b.clone();
        }
        return ((TypedValue) value).copy();
    }

    // MOVE key db
    static void move(Session s, Args a) {
        if (s.engine().config().clusterEnabled.value()) {
            throw new RedisError("ERR MOVE is not allowed in cluster mode");
        }
        long v;
        try {
            v = a.parseLong(2);
        } catch (NumberFormatException e) {
            throw Errors.NOT_INTEGER;
        }
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw INT_RANGE;
        }
        if (v < 0 || v >= s.engine().keyspace().databases()) {
            throw Errors.DB_INDEX;
        }
        if (v == s.dbIndex()) {
            throw SAME_OBJECT;
        }
        Database srcDb = s.db();
        Database dstDb = s.engine().keyspace().db((int) v);
        int h = Keys.hash(a, 1);
        StripeLocks locks = s.locks();
        try {
            locks.add(srcDb.segment(h)).add(dstDb.segment(h)).lock();
            Segment src = srcDb.segment(h);
            Entry e = Keys.write(s, src, a, 1, h);
            if (e == null || Keys.write(s, dstDb.segment(h), a, 1, h) != null) {
                s.out().integer(0);
                return;
            }
            src.removeEntry(e);
            Entry moved = dstDb.segment(h).insert(e.key(), h, e.value(), e.expireAt());
            moved.access(e.access());
            moved.stringMark(e.stringMark());
            s.engine().blocking().signal(dstDb, e.key(), 0, e.key().length);
            s.dirty(1);
            s.notify(Notifications.GENERIC, "move_from", e.key(), srcDb.index());
            s.notify(Notifications.GENERIC, "move_to", e.key(), dstDb.index());
            s.out().integer(1);
        } finally {
            locks.unlock();
        }
    }
}
