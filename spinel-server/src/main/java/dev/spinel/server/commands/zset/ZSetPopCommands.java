package dev.spinel.server.commands.zset;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.commands.key.SetKeys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.types.ZSetValue;

import java.nio.charset.StandardCharsets;

/**
 * ZPOPMIN, ZPOPMAX and ZMPOP (Redis's genericZpopCommand). The pop itself is {@link #pop}, shared with
 * the blocking forms (BZPOPMIN, BZPOPMAX, BZMPOP), which call it once a key they wait on has elements.
 */
public final class ZSetPopCommands {
    private static final RedisError NUMKEYS = new RedisError("ERR numkeys should be greater than 0");
    private static final RedisError COUNT = new RedisError("ERR count should be greater than 0");

    /** How a pop's reply is shaped; the variants Redis uses for its pop commands. */
    public enum Reply {
        /** {@code [member, score, member, score...]}: ZPOPMIN/ZPOPMAX in RESP2, or without a count. */
        FLAT,
        /** {@code [[member, score], ...]}: ZPOPMIN/ZPOPMAX with a count in RESP3. */
        PAIRS,
        /** {@code [key, [[member, score], ...]]}: ZMPOP and BZMPOP. */
        KEY_PAIRS,
        /** {@code [key, member, score]}: BZPOPMIN/BZPOPMAX (one element). */
        KEY_FLAT
    }

    private ZSetPopCommands() {
    }

    static final byte[] ZPOPMIN = "ZPOPMIN".getBytes(StandardCharsets.US_ASCII);
    static final byte[] ZPOPMAX = "ZPOPMAX".getBytes(StandardCharsets.US_ASCII);

    static void register(CommandTable t) {
        t.register("zpopmin", (s, a) -> zpop(s, a, false));
        t.register("zpopmax", (s, a) -> zpop(s, a, true));
        t.register("zmpop", ZSetPopCommands::zmpop);
    }

    /**
     * Pops up to {@code count} (≥ 1) elements from the lowest ({@code max == false}) or highest end of a
     * non-empty sorted set, writes the reply in the given shape, deletes the key if it became empty, and
     * returns the number popped. The caller holds the key's stripe lock; {@code e} is the key's live entry.
     */
    public static long pop(Session s, Segment seg, Entry e, ZSetValue z, boolean max, long count, Reply shape) {
        long n = pop(s.engine(), s.out(), s.dbIndex(), seg, e, z, max, count, shape);
        s.dirty(n);
        return n;
    }

    /**
     * The pop itself, writing into {@code out}: also used by the blocking forms when serving a waiter
     * from another thread (so it must not touch any session). Announces zpopmin/zpopmax (and del when the
     * key is emptied) as Redis's genericZpopCommand. The caller accounts {@code dirty}.
     */
    static long pop(Engine eng, ReplyBuffer out, int dbIndex, Segment seg, Entry e, ZSetValue z, boolean max,
            long count, Reply shape) {
        long n = Math.min(count, z.size());
        switch (shape) {
            case FLAT -> out.array((int) (n * 2));
            case PAIRS -> out.array((int) n);
            case KEY_PAIRS -> {
                out.array(2);
                out.bulk(e.key());
                out.array((int) n);
            }
            case KEY_FLAT -> {
                out.array(3);
                out.bulk(e.key());
            }
        }
        long before = z.memoryUsage();
        long size = z.size();
        ZSetValue.Cursor c = z.cursor(max ? size - 1 : 0);
        for (long k = 0; k < n; k++) {
            if (shape == Reply.PAIRS || shape == Reply.KEY_PAIRS) {
                out.array(2);
            }
            out.bulk(c.memberArray(), c.memberOffset(), c.memberLength());
            out.doubleValue(c.score());
            if (max) {
                c.prev();
            } else {
                c.next();
            }
        }
        z.removeRanks(max ? size - n : 0, max ? size - 1 : n - 1);
        byte[] key = e.key();
        SetKeys.afterChange(seg, e, z, before);
        Notifications nt = eng.notifications();
        nt.notify(Notifications.ZSET, max ? "zpopmax" : "zpopmin", key, dbIndex);
        if (z.size() == 0) {
            nt.notify(Notifications.GENERIC, "del", key, dbIndex);
        }
        return n;
    }

    // ZPOPMIN key [count] / ZPOPMAX key [count]
    static void zpop(Session s, Args a, boolean max) {
        if (a.count() > 3) {
            throw Errors.SYNTAX;
        }
        long count = 1;
        boolean withCount = a.count() == 3;
        if (withCount) {
            try {
                count = a.parseLong(2);
            } catch (NumberFormatException ex) {
                throw Errors.NOT_POSITIVE;
            }
            if (count < 0) {
                throw Errors.NOT_POSITIVE;
            }
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            ZSetValue z = SetKeys.zset(e);
            if (z == null || count == 0) {
                s.out().array(0);
                return;
            }
            pop(s, seg, e, z, max, count, withCount && s.out().resp3() ? Reply.PAIRS : Reply.FLAT);
        } finally {
            seg.unlock();
        }
    }

    /** ZMPOP/BZMPOP's parsed options: keys are arguments [firstKey, whereArg). */
    record MpopArgs(int firstKey, int whereArg, boolean max, long count) {
        /** Parses from the numkeys argument, in Redis's order (numkeys, MIN|MAX, COUNT). */
        static MpopArgs parse(Args a, int numkeysArg) {
            long numkeys;
            try {
                numkeys = a.parseLong(numkeysArg);
            } catch (NumberFormatException ex) {
                throw NUMKEYS;
            }
            if (numkeys < 1) {
                throw NUMKEYS;
            }
            long whereArg = numkeysArg + 1 + numkeys;
            if (whereArg >= a.count()) {
                throw Errors.SYNTAX;
            }
            int w = (int) whereArg;
            boolean max;
            if (a.is(w, "MIN")) {
                max = false;
            } else if (a.is(w, "MAX")) {
                max = true;
            } else {
                throw Errors.SYNTAX;
            }
            long count = -1;
            for (int j = w + 1; j < a.count(); j++) {
                if (count == -1 && a.is(j, "COUNT") && j + 1 < a.count()) {
                    j++;
                    try {
                        count = a.parseLong(j);
                    } catch (NumberFormatException ex) {
                        throw COUNT;
                    }
                    if (count < 1) {
                        throw COUNT;
                    }
                } else {
                    throw Errors.SYNTAX;
                }
            }
            return new MpopArgs(numkeysArg + 1, w, max, count == -1 ? 1 : count);
        }
    }

    // ZMPOP numkeys key [key ...] MIN | MAX [COUNT count]
    static void zmpop(Session s, Args a) {
        MpopArgs m = MpopArgs.parse(a, 1);
        try {
            SetKeys.lockKeys(s, a, m.firstKey(), m.whereArg(), -1);
            if (!popFirst(s, a, m.firstKey(), m.whereArg(), m.max(), m.count(), Reply.KEY_PAIRS)) {
                s.out().nullArray();
            }
        } finally {
            s.locks().unlock();
        }
    }

    /**
     * Pops from the first non-empty sorted set among key arguments [from, to) (stripes locked by the
     * caller); WRONGTYPE on the first key of another type met before it. False when all are empty. Propagated
     * as Redis 7.0 does: a ZPOPMIN/ZPOPMAX of that key, with the count popped unless it is BZPOPMIN/BZPOPMAX's
     * single element ({@link Reply#KEY_FLAT}).
     */
    static boolean popFirst(Session s, Args a, int from, int to, boolean max, long count, Reply shape) {
        for (int i = from; i < to; i++) {
            Entry e = SetKeys.write(s, a, i);
            if (e == null) {
                continue;
            }
            ZSetValue z = SetKeys.zset(e);
            s.onlyKeyChanged(i, from, to);
            long n = pop(s, s.db().segment(Keys.hash(a, i)), e, z, max, count, shape);
            byte[] key = a.copy(i);
            if (shape == Reply.KEY_FLAT) {
                s.propagateAs(max ? ZPOPMAX : ZPOPMIN, key);
            } else {
                s.propagateAs(max ? ZPOPMAX : ZPOPMIN, key, Long.toString(n).getBytes(StandardCharsets.US_ASCII));
            }
            return true;
        }
        return false;
    }
}
