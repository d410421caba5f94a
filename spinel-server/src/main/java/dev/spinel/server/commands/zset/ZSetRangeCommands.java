package dev.spinel.server.commands.zset;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.common.ZScores;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.commands.key.SetKeys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.types.LexRange;
import dev.spinel.store.types.ScoreRange;
import dev.spinel.store.types.SetLimits;
import dev.spinel.store.types.ZSetValue;

import java.util.Arrays;

/**
 * Sorted-set ranges (Redis's zrangeGenericCommand and friends): ZRANGE with BYSCORE/BYLEX/REV/LIMIT/
 * WITHSCORES, ZRANGESTORE, the legacy ZREVRANGE/Z[REV]RANGEBYSCORE/Z[REV]RANGEBYLEX, ZCOUNT, ZLEXCOUNT and
 * ZREMRANGEBYRANK/SCORE/LEX. Every range is turned into an interval of ranks (O(log n) on a skip list)
 * and then walked from its first element.
 */
final class ZSetRangeCommands {
    private static final RedisError LIMIT_NEEDS_BY =
            new RedisError("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
    private static final RedisError WITHSCORES_BYLEX =
            new RedisError("ERR syntax error, WITHSCORES not supported in combination with BYLEX");

    enum Kind { AUTO, RANK, SCORE, LEX }

    private ZSetRangeCommands() {
    }

    static void register(CommandTable t, SetLimits limits) {
        t.register("zrange", (s, a) -> range(s, a, 1, -1, Kind.AUTO, 0, limits));
        t.register("zrangestore", (s, a) -> range(s, a, 2, 1, Kind.AUTO, 0, limits));
        t.register("zrevrange", (s, a) -> range(s, a, 1, -1, Kind.RANK, -1, limits));
        t.register("zrangebyscore", (s, a) -> range(s, a, 1, -1, Kind.SCORE, 1, limits));
        t.register("zrevrangebyscore", (s, a) -> range(s, a, 1, -1, Kind.SCORE, -1, limits));
        t.register("zrangebylex", (s, a) -> range(s, a, 1, -1, Kind.LEX, 1, limits));
        t.register("zrevrangebylex", (s, a) -> range(s, a, 1, -1, Kind.LEX, -1, limits));
        t.register("zcount", (s, a) -> count(s, a, false));
        t.register("zlexcount", (s, a) -> count(s, a, true));
        t.register("zremrangebyrank", (s, a) -> removeRange(s, a, Kind.RANK));
        t.register("zremrangebyscore", (s, a) -> removeRange(s, a, Kind.SCORE));
        t.register("zremrangebylex", (s, a) -> removeRange(s, a, Kind.LEX));
    }

    // ZRANGE key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset count] [WITHSCORES]
    // ZRANGESTORE dst src min max [BYSCORE | BYLEX] [REV] [LIMIT offset count]
    // ZREVRANGE key start stop [WITHSCORES]
    // Z[REV]RANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]   (REV: max min)
    // Z[REV]RANGEBYLEX key min max [LIMIT offset count]                  (REV: max min)
    static void range(Session s, Args a, int keyArg, int dstArg, Kind fixedKind, int fixedDir, SetLimits limits) {
        Kind kind = fixedKind;
        int dir = fixedDir;
        boolean withScores = false;
        long offset = 0;
        long limit = -1;
        for (int j = keyArg + 3; j < a.count(); j++) {
            int left = a.count() - j - 1;
            if (dstArg < 0 && a.is(j, "WITHSCORES")) {
                withScores = true;
            } else if (a.is(j, "LIMIT") && left >= 2) {
                offset = NumberArgs.parseLong(a, j + 1);
                limit = NumberArgs.parseLong(a, j + 2);
                j += 2;
            } else if (dir == 0 && a.is(j, "REV")) { // a second REV, BYSCORE or BYLEX is a syntax error
                dir = -1;
            } else if (kind == Kind.AUTO && a.is(j, "BYLEX")) {
                kind = Kind.LEX;
            } else if (kind == Kind.AUTO && a.is(j, "BYSCORE")) {
                kind = Kind.SCORE;
            } else {
                throw Errors.SYNTAX;
            }
        }
        if (dir == 0) {
            dir = 1;
        }
        if (kind == Kind.AUTO) {
            kind = Kind.RANK;
        }
        if (limit != -1 && kind == Kind.RANK) {
            throw LIMIT_NEEDS_BY;
        }
        if (withScores && kind == Kind.LEX) {
            throw WITHSCORES_BYLEX;
        }
        int minArg = keyArg + 1;
        int maxArg = keyArg + 2;
        if (dir < 0 && kind != Kind.RANK) {
            minArg = keyArg + 2;
            maxArg = keyArg + 1;
        }
        long start = 0;
        long end = 0;
        ScoreRange sr = null;
        LexRange lr = null;
        switch (kind) {
            case SCORE -> sr = ZScores.scoreRange(a, minArg, maxArg);
            case LEX -> lr = ZScores.lexRange(a, minArg, maxArg);
            default -> {
                start = NumberArgs.parseLong(a, minArg);
                end = NumberArgs.parseLong(a, maxArg);
            }
        }
        boolean store = dstArg >= 0;
        try {
            SetKeys.lockKeys(s, a, keyArg, keyArg + 1, dstArg);
            Entry e = store ? SetKeys.write(s, a, keyArg) : SetKeys.read(s, a, keyArg);
            ZSetValue z = SetKeys.zset(e);
            ReplyBuffer out = s.out();
            if (z == null) {
                if (store) {
                    storeResult(s, a, dstArg, null);
                } else {
                    out.array(0);
                }
                return;
            }
            long llen = z.size();
            long first; // forward rank of the first element to emit
            long n;
            if (kind == Kind.RANK) {
                if (start < 0) {
                    start += llen;
                }
                if (end < 0) {
                    end += llen;
                }
                if (start < 0) {
                    start = 0;
                }
                if (start > end || start >= llen) {
                    n = 0;
                    first = 0;
                } else {
                    if (end >= llen) {
                        end = llen - 1;
                    }
                    n = end - start + 1;
                    first = dir > 0 ? start : llen - 1 - start;
                }
            } else if (offset < 0 || (offset > 0 && offset >= llen) || (lr != null && !lexMayMatch(z, lr))) {
                n = 0;
                first = 0;
            } else {
                // As Redis: find the first element in range from the chosen end, then walk while the
                // far bound holds (matters for BYLEX over members not in lexicographic order).
                long from = dir > 0 ? (kind == Kind.SCORE ? z.countBelow(sr) : z.countBelow(lr))
                        : (kind == Kind.SCORE ? z.countUpToMax(sr) - 1 : z.lastUpToMax(lr));
                long skipped = 0;
                n = 0;
                ZSetValue.Cursor c = z.cursor(from);
                if (c.valid() && inRange(c, sr, lr, -dir)) {
                    for (; c.valid() && inRange(c, sr, lr, dir); step(c, dir)) {
                        if (skipped < offset) {
                            skipped++;
                        } else if (limit >= 0 && n >= limit) {
                            break;
                        } else {
                            n++;
                        }
                    }
                }
                first = dir > 0 ? from + offset : from - offset;
            }
            if (store) {
                ZSetValue dst = n > limits.zsetMaxListpackEntries() ? ZSetValue.createSkiplist() : ZSetValue.createListpack();
                ZSetValue.Cursor c = z.cursor(first);
                for (long k = 0; k < n; k++) {
                    dst.insert(Arrays.copyOfRange(c.memberArray(), c.memberOffset(), c.memberOffset() + c.memberLength()), c.score(), limits);
                    step(c, dir);
                }
                storeResult(s, a, dstArg, dst);
                return;
            }
            emit(out, z, first, n, dir, withScores);
        } finally {
            s.locks().unlock();
        }
    }

    /**
     * Redis's zslIsInLexRange pre-check: a non-empty range whose min is not above the last member and
     * whose max is not below the first. Without it nothing is in range.
     */
    static boolean lexMayMatch(ZSetValue z, LexRange lr) {
        if (lr.isEmpty() || z.size() == 0) {
            return false;
        }
        return z.cursor(z.size() - 1).memberAboveMin(lr) && z.cursor(0).memberBelowMax(lr);
    }

    /** ZLEXCOUNT as Redis counts: by walking a listpack, by rank difference on a skip list (O(log n)). */
    private static long lexCount(ZSetValue z, LexRange lr) {
        if (!lexMayMatch(z, lr)) {
            return 0;
        }
        long first = z.countBelow(lr);
        if (z.isListpack()) {
            return countForward(z, first, null, lr);
        }
        ZSetValue.Cursor c = z.cursor(first);
        return c.valid() && c.memberBelowMax(lr) ? z.countUpToMax(lr) - first : 0;
    }

    /** The bound checked while walking: the max going forward, the min going backward. */
    private static boolean inRange(ZSetValue.Cursor c, ScoreRange sr, LexRange lr, int dir) {
        if (sr != null) {
            return dir > 0 ? sr.belowMax(c.score()) : sr.aboveMin(c.score());
        }
        return dir > 0 ? c.memberBelowMax(lr) : c.memberAboveMin(lr);
    }

    /** Elements from forward rank {@code from} onwards while the range's max holds. */
    private static long countForward(ZSetValue z, long from, ScoreRange sr, LexRange lr) {
        long n = 0;
        ZSetValue.Cursor c = z.cursor(from);
        if (!c.valid() || !inRange(c, sr, lr, -1)) {
            return 0;
        }
        for (; c.valid() && inRange(c, sr, lr, 1); c.next()) {
            n++;
        }
        return n;
    }

    private static void step(ZSetValue.Cursor c, int dir) {
        if (dir > 0) {
            c.next();
        } else {
            c.prev();
        }
    }

    /** Replies {@code n} elements from forward rank {@code first}, walking in direction {@code dir}. */
    static void emit(ReplyBuffer out, ZSetValue z, long first, long n, int dir, boolean withScores) {
        boolean pairs = withScores && out.resp3();
        out.array((int) (withScores && !pairs ? n * 2 : n));
        if (n == 0) {
            return;
        }
        ZSetValue.Cursor c = z.cursor(first);
        for (long k = 0; k < n; k++) {
            if (pairs) {
                out.array(2);
            }
            out.bulk(c.memberArray(), c.memberOffset(), c.memberLength());
            if (withScores) {
                out.doubleValue(c.score());
            }
            step(c, dir);
        }
    }

    private static void storeResult(Session s, Args a, int dstArg, ZSetValue result) {
        if (SetKeys.storeResult(s, a, dstArg, result, Notifications.ZSET, "zrangestore") || result != null) {
            s.dirty(1);
        }
        s.out().integer(result == null ? 0 : result.size());
    }

    // ZCOUNT key min max / ZLEXCOUNT key min max
    static void count(Session s, Args a, boolean lex) {
        ScoreRange sr = lex ? null : ZScores.scoreRange(a, 2, 3);
        LexRange lr = lex ? ZScores.lexRange(a, 2, 3) : null;
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            ZSetValue z = SetKeys.zset(Keys.read(s, seg, a, 1, h));
            long n = 0;
            if (z != null) {
                n = lex ? lexCount(z, lr) : z.countUpToMax(sr) - z.countBelow(sr);
            }
            s.out().integer(Math.max(0, n));
        } finally {
            seg.unlock();
        }
    }

    // ZREMRANGEBYRANK key start stop / ZREMRANGEBYSCORE key min max / ZREMRANGEBYLEX key min max
    static void removeRange(Session s, Args a, Kind kind) {
        long start = 0;
        long end = 0;
        ScoreRange sr = null;
        LexRange lr = null;
        switch (kind) {
            case SCORE -> sr = ZScores.scoreRange(a, 2, 3);
            case LEX -> lr = ZScores.lexRange(a, 2, 3);
            default -> {
                start = NumberArgs.parseLong(a, 2);
                end = NumberArgs.parseLong(a, 3);
            }
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            ZSetValue z = SetKeys.zset(e);
            if (z == null) {
                s.out().integer(0);
                return;
            }
            long llen = z.size();
            if (kind == Kind.RANK) {
                if (start < 0) {
                    start += llen;
                }
                if (end < 0) {
                    end += llen;
                }
                if (start < 0) {
                    start = 0;
                }
                if (start > end || start >= llen) {
                    s.out().integer(0);
                    return;
                }
                if (end >= llen) {
                    end = llen - 1;
                }
            } else if (lr != null && !lexMayMatch(z, lr)) {
                s.out().integer(0);
                return;
            } else {
                start = kind == Kind.SCORE ? z.countBelow(sr) : z.countBelow(lr);
                end = start + countForward(z, start, sr, lr) - 1;
            }
            long before = z.memoryUsage();
            long removed = z.removeRanks(start, end);
            SetKeys.afterChange(seg, e, z, before);
            s.dirty(removed);
            if (removed > 0) {
                s.notify(Notifications.ZSET, kind == Kind.RANK ? "zremrangebyrank"
                        : kind == Kind.SCORE ? "zremrangebyscore" : "zremrangebylex", a, 1);
                if (z.size() == 0) {
                    s.notify(Notifications.GENERIC, "del", a, 1);
                }
            }
            s.out().integer(removed);
        } finally {
            seg.unlock();
        }
    }
}
