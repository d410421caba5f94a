package dev.spinel.server.commands.list;

import java.nio.charset.StandardCharsets;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.ServeContext;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Segment;
import dev.spinel.store.StripeLocks;
import dev.spinel.store.types.ListValue;

/**
 * List commands over several keys: LMOVE, RPOPLPUSH, LMPOP. Their cores ({@link #move}, {@link #popFirst})
 * take the keys as bytes so that the blocking variants can run them when serving a waiter.
 * Keys' stripes are locked together in global order ({@link StripeLocks}).
 */
public final class ListMoveCommands {
    static final byte[] LMOVE = "LMOVE".getBytes(StandardCharsets.US_ASCII);
    static final byte[] LPOP = "LPOP".getBytes(StandardCharsets.US_ASCII);
    static final byte[] RPOP = "RPOP".getBytes(StandardCharsets.US_ASCII);

    /** A count as the argument of a propagated command. */
    static byte[] count(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }
    static final RedisError NUMKEYS = new RedisError("ERR numkeys should be greater than 0");
    static final RedisError COUNT_POSITIVE = new RedisError("ERR count should be greater than 0");

    private ListMoveCommands() {
    }

    static void register(CommandTable t) {
        t.register("lmove", (s, a) -> lmove(s, a, Lists.side(a, 3), Lists.side(a, 4)));
        t.register("rpoplpush", (s, a) -> lmove(s, a, false, true));
        t.register("lmpop", (s, a) -> {
            MpopArgs m = MpopArgs.parse(a, 1);
            lmpop(s, a, m);
        });
    }

    // LMOVE source destination LEFT|RIGHT LEFT|RIGHT / RPOPLPUSH source destination
    static void lmove(Session s, Args a, boolean fromHead, boolean toHead) {
        Database db = s.db();
        byte[] src = a.copy(1);
        byte[] dst = a.copy(2);
        StripeLocks locks = s.locks().add(db, src, 0, src.length).add(db, dst, 0, dst.length);
        locks.lock();
        try {
            if (move(s.engine(), s.out(), db, src, dst, fromHead, toHead, s.now(), false)) {
                s.dirty(1);
            } else {
                s.out().nullBulk();
            }
        } finally {
            locks.unlock();
        }
    }

    /**
     * Moves one element from {@code src} to {@code dst} with both stripes held; writes the element (or
     * WRONGTYPE) and returns true, or returns false having written nothing when the source is absent.
     * With {@code claim} (serving a blocked client) the source's type is re-checked silently and
     * {@code claimer} runs before anything changes.
     */
    static boolean move(Engine eng, ReplyBuffer out, Database db, byte[] src, byte[] dst,
                        boolean fromHead, boolean toHead, long now, boolean serving) {
        return move(eng, out, db, src, dst, fromHead, toHead, now, serving, null);
    }

    static boolean move(Engine eng, ReplyBuffer out, Database db, byte[] src, byte[] dst,
                        boolean fromHead, boolean toHead, long now, boolean serving,
                        ServeContext claim) {
        int sh = KeyHash.hash(src);
        Segment sseg = db.segment(sh);
        Entry se = sseg.get(src, 0, src.length, sh, now);
        if (se == null) {
            return false;
        }
        if (serving && !(se.value() instanceof ListValue)) {
            return false;
        }
        ListValue sl = Lists.list(se);
        if (sl.length() == 0) {
            return false;
        }
        if (claim != null && !claim.claim()) {
            return false;
        }
        int dh = KeyHash.hash(dst);
        Segment dseg = db.segment(dh);
        Entry de = dseg.get(dst, 0, dst.length, dh, now);
        if (de != null && !(de.value() instanceof ListValue)) {
            if (serving) {
                out.error(Errors.WRONGTYPE.getMessage());
                return true;
            }
            throw Errors.WRONGTYPE;
        }
        long sBefore = sl.memoryUsage();
        byte[] v = sl.pop(fromHead);
        sseg.adjustMemory(sl.memoryUsage() - sBefore);
        ListValue dl;
        if (de == null) {
            dl = new ListValue(eng.config().collectionSettings);
            dseg.insert(dst, dh, dl, -1);
        } else {
            dl = (ListValue) de.value();
        }
        long dBefore = dl.memoryUsage();
        dl.push(toHead, v);
        dseg.adjustMemory(dl.memoryUsage() - dBefore);
        if (sl.length() == 0) {
            sseg.removeEntry(se);
        }
        if (serving) {
            eng.stats().dirty.increment(); // the caller records it for its session otherwise
        }
        // Redis's order: the push on the destination, the pop on the source, then del if emptied
        Notifications nt = eng.notifications();
        nt.notify(Notifications.LIST, toHead ? "lpush" : "rpush", dst, db.index());
        nt.notify(Notifications.LIST, fromHead ? "lpop" : "rpop", src, db.index());
        if (sl.length() == 0) {
            nt.notify(Notifications.GENERIC, "del", src, db.index());
        }
        eng.blocking().signal(db, dst, 0, dst.length);
        out.bulk(v);
        return true;
    }

    /** Parsed {@code numkeys key [key ...] LEFT|RIGHT [COUNT count]} of LMPOP/BLMPOP. */
    record MpopArgs(int firstKey, int numKeys, boolean head, long count) {
        static MpopArgs parse(Args a, int numkeysIdx) {
            long numkeys = NumberArgs.parseLongOr(a, numkeysIdx, NUMKEYS);
            if (numkeys <= 0) {
                throw NUMKEYS;
            }
            if (numkeys > a.count() - numkeysIdx - 2) {
                throw Errors.SYNTAX;
            }
            int whereIdx = numkeysIdx + (int) numkeys + 1;
            boolean head = Lists.side(a, whereIdx);
            long count = -1;
            for (int j = whereIdx + 1; j < a.count(); j++) {
                if (count == -1 && a.is(j, "COUNT") && j + 1 < a.count()) {
                    count = NumberArgs.parseLongOr(a, ++j, COUNT_POSITIVE);
                    if (count <= 0) {
                        throw COUNT_POSITIVE;
                    }
                } else {
                    throw Errors.SYNTAX;
                }
            }
            return new MpopArgs(numkeysIdx + 1, (int) numkeys, head, count == -1 ? 1 : count);
        }
    }

    // LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]
    static void lmpop(Session s, Args a, MpopArgs m) {
        Database db = s.db();
        StripeLocks locks = s.locks();
        for (int i = 0; i < m.numKeys(); i++) {
            int k = m.firstKey() + i;
            locks.add(db, a.buffer(), a.offset(k), a.length(k));
        }
        locks.lock();
        try {
            for (int i = 0; i < m.numKeys(); i++) {
                int k = m.firstKey() + i;
                byte[] key = a.copy(k);
                int n = popFirst(s.engine(), s.out(), db, key, m.head(), m.count(), s.now(), false, null);
                if (n > 0) {
                    s.onlyKeyChanged(k, m.firstKey(), m.firstKey() + m.numKeys());
                    s.dirty(1);
                    s.propagateAs(m.head() ? LPOP : RPOP, key, count(n)); // as Redis 7.0: the count popped
                    return;
                }
            }
            s.out().nullArray();
        } finally {
            locks.unlock();
        }
    }

    /**
     * Pops up to {@code count} elements from the list at {@code key} (stripe held) and writes
     * {@code [key, [elements]]}; returns how many it popped: 0, writing nothing, when the key is absent or empty.
     * WRONGTYPE is thrown (or, when serving, the key is skipped).
     */
    static int popFirst(Engine eng, ReplyBuffer out, Database db, byte[] key, boolean head, long count,
                            long now, boolean serving, ServeContext claim) {
        int h = KeyHash.hash(key);
        Segment seg = db.segment(h);
        Entry e = seg.get(key, 0, key.length, h, now);
        if (e == null || (serving && !(e.value() instanceof ListValue))) {
            return 0;
        }
        ListValue l = Lists.list(e);
        if (l.length() == 0 || (claim != null && !claim.claim())) {
            return 0;
        }
        out.array(2);
        out.bulk(key);
        int n = (int) Math.min(count, l.length());
        long before = l.memoryUsage();
        out.array(n);
        for (int i = 0; i < n; i++) {
            out.bulk(l.pop(head));
        }
        seg.adjustMemory(l.memoryUsage() - before);
        if (serving) {
            eng.stats().dirty.increment(); // the caller records it for its session otherwise
        }
        Notifications nt = eng.notifications();
        nt.notify(Notifications.LIST, head ? "lpop" : "rpop", key, db.index());
        if (l.length() == 0) {
            seg.removeEntry(e);
            nt.notify(Notifications.GENERIC, "del", key, db.index());
        }
        return n;
    }
}
