package dev.spinel.server.commands.zset;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.common.MemberScan;
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
import dev.spinel.store.types.SetLimits;
import dev.spinel.store.types.ZSetValue;

/**
 * Sorted-set commands on single members (Redis's t_zset.c): ZADD, ZINCRBY, ZREM, ZCARD, ZSCORE, ZMSCORE,
 * ZRANK, ZREVRANK, ZSCAN. Ranges are in {@link ZSetRangeCommands}, pops in {@link ZSetPopCommands},
 * random members in {@link ZSetRandomCommands}, and union/intersection/difference in
 * {@link ZSetAlgebraCommands}. Each command holds its key's stripe lock for its whole run.
 */
public final class ZSetCommands {
    private static final RedisError INCR_PAIRS = new RedisError("ERR INCR option supports a single increment-element pair");
    private static final RedisError XX_NX = new RedisError("ERR XX and NX options at the same time are not compatible");
    private static final RedisError GT_LT_NX =
            new RedisError("ERR GT, LT, and/or NX options at the same time are not compatible");

    private static final int NX = 1;
    private static final int XX = 2;
    private static final int CH = 4;
    private static final int INCR = 8;
    private static final int GT = 16;
    private static final int LT = 32;

    private ZSetCommands() {
    }

    public static void register(CommandTable t, SetLimits limits) {
        t.register("zadd", (s, a) -> zadd(s, a, limits));
        t.register("zincrby", (s, a) -> zincrby(s, a, limits));
        t.register("zrem", ZSetCommands::zrem);
        t.register("zcard", ZSetCommands::zcard);
        t.register("zscore", ZSetCommands::zscore);
        t.register("zmscore", ZSetCommands::zmscore);
        t.register("zrank", (s, a) -> zrank(s, a, false));
        t.register("zrevrank", (s, a) -> zrank(s, a, true));
        t.register("zscan", ZSetCommands::zscan);
        ZSetRangeCommands.register(t, limits);
        ZSetPopCommands.register(t);
        ZSetBlockingCommands.register(t);
        ZSetRandomCommands.register(t);
        ZSetAlgebraCommands.register(t, limits);
    }

    // ZADD key [NX | XX] [GT | LT] [CH] [INCR] score member [score member ...]
    public static void zadd(Session s, Args a, SetLimits limits) {
        int flags = 0;
        int i = 2;
        for (; i < a.count(); i++) {
            if (a.is(i, "NX")) {
                flags |= NX;
            } else if (a.is(i, "XX")) {
                flags |= XX;
            } else if (a.is(i, "CH")) {
                flags |= CH;
            } else if (a.is(i, "INCR")) {
                flags |= INCR;
            } else if (a.is(i, "GT")) {
                flags |= GT;
            } else if (a.is(i, "LT")) {
                flags |= LT;
            } else {
                break;
            }
        }
        int elements = a.count() - i;
        if (elements == 0 || elements % 2 != 0) {
            throw Errors.SYNTAX;
        }
        if ((flags & NX) != 0 && (flags & XX) != 0) {
            throw XX_NX;
        }
        if (((flags & GT) != 0 && (flags & NX) != 0) || ((flags & LT) != 0 && (flags & NX) != 0)
                || ((flags & GT) != 0 && (flags & LT) != 0)) {
            throw GT_LT_NX;
        }
        if ((flags & INCR) != 0 && elements > 2) {
            throw INCR_PAIRS;
        }
        double[] scores = new double[elements / 2];
        for (int k = 0; k < scores.length; k++) {
            scores[k] = ZScores.score(a, i + 2 * k);
        }
        add(s, a, 1, i, scores, flags, limits);
    }

    // ZINCRBY key increment member
    static void zincrby(Session s, Args a, SetLimits limits) {
        // Redis runs ZINCRBY through ZADD's option parser: an increment spelled like an option (NX, XX, CH,
        // INCR, GT, LT) is taken as one, which leaves no score/member pair: a syntax error
        if (a.is(2, "NX") || a.is(2, "XX") || a.is(2, "CH") || a.is(2, "INCR") || a.is(2, "GT") || a.is(2, "LT")) {
            throw Errors.SYNTAX;
        }
        add(s, a, 1, 2, new double[] {ZScores.score(a, 2)}, INCR, limits);
    }

    /** Redis's zsetAdd loop over score/member pairs starting at argument {@code first}; writes the reply. */
    private static void add(Session s, Args a, int keyArg, int first, double[] scores, int flags, SetLimits limits) {
        boolean incr = (flags & INCR) != 0;
        int h = Keys.hash(a, keyArg);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, keyArg, h);
            ZSetValue z = SetKeys.zset(e);
            ReplyBuffer out = s.out();
            if (z == null) {
                if ((flags & XX) != 0) {
                    if (incr) {
                        out.nullBulk();
                    } else {
                        out.integer(0);
                    }
                    return;
                }
                z = ZSetValue.createFor(a.length(first + 1), limits);
                e = seg.insert(a.copy(keyArg), h, z, -1);
                s.engine().blocking().signal(s.db(), a.buffer(), a.offset(keyArg), a.length(keyArg));
            }
            long before = z.memoryUsage();
            long added = 0;
            long updated = 0;
            long processed = 0;
            double score = 0;
            try {
                for (int k = 0; k < scores.length; k++) {
                    int m = first + 2 * k + 1;
                    byte[] buf = a.buffer();
                    int off = a.offset(m);
                    int len = a.length(m);
                    score = scores[k];
                    double cur = z.score(buf, off, len);
                    if (!Double.isNaN(cur)) {
                        if ((flags & NX) != 0) {
                            continue;
                        }
                        if (incr) {
                            score += cur;
                            if (Double.isNaN(score)) {
                                throw ZScores.NAN;
                            }
                        }
                        if (((flags & GT) != 0 && score <= cur) || ((flags & LT) != 0 && score >= cur)) {
                            continue;
                        }
                        processed++;
                        if (score != cur) {
                            z.updateScore(buf, off, len, score);
                            updated++;
                        }
                    } else if ((flags & XX) == 0) {
                        z.insert(buf, off, len, score, limits);
                        added++;
                        processed++;
                    }
                }
            } finally {
                SetKeys.afterChange(seg, e, z, before);
                s.dirty(added + updated);
                if (added + updated > 0) {
                    s.notify(Notifications.ZSET, incr ? "zincr" : "zadd", a, keyArg);
                }
            }
            if (incr) {
                if (processed > 0) {
                    out.doubleValue(score);
                } else {
                    out.nullBulk();
                }
            } else {
                out.integer((flags & CH) != 0 ? added + updated : added);
            }
        } finally {
            seg.unlock();
        }
    }

    // ZREM key member [member ...]
    static void zrem(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            ZSetValue z = SetKeys.zset(e);
            long removed = 0;
            if (z != null) {
                long before = z.memoryUsage();
                for (int i = 2; i < a.count() && z.size() > 0; i++) {
                    if (z.remove(a.buffer(), a.offset(i), a.length(i))) {
                        removed++;
                    }
                }
                SetKeys.afterChange(seg, e, z, before);
            }
            s.dirty(removed);
            if (removed > 0) {
                s.notify(Notifications.ZSET, "zrem", a, 1);
                if (z.size() == 0) {
                    s.notify(Notifications.GENERIC, "del", a, 1);
                }
            }
            s.out().integer(removed);
        } finally {
            seg.unlock();
        }
    }

    // ZCARD key
    static void zcard(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            ZSetValue z = SetKeys.zset(Keys.read(s, seg, a, 1, h));
            s.out().integer(z == null ? 0 : z.size());
        } finally {
            seg.unlock();
        }
    }

    // ZSCORE key member
    static void zscore(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            ZSetValue z = SetKeys.zset(Keys.read(s, seg, a, 1, h));
            double d = z == null ? Double.NaN : z.score(a.buffer(), a.offset(2), a.length(2));
            if (Double.isNaN(d)) {
                s.out().nullBulk();
            } else {
                s.out().doubleValue(d);
            }
        } finally {
            seg.unlock();
        }
    }

    // ZMSCORE key member [member ...]
    static void zmscore(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            ZSetValue z = SetKeys.zset(Keys.read(s, seg, a, 1, h));
            ReplyBuffer out = s.out();
            out.array(a.count() - 2);
            for (int i = 2; i < a.count(); i++) {
                double d = z == null ? Double.NaN : z.score(a.buffer(), a.offset(i), a.length(i));
                if (Double.isNaN(d)) {
                    out.nullBulk();
                } else {
                    out.doubleValue(d);
                }
            }
        } finally {
            seg.unlock();
        }
    }

    // ZRANK key member / ZREVRANK key member
    static void zrank(Session s, Args a, boolean reverse) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            ZSetValue z = SetKeys.zset(Keys.read(s, seg, a, 1, h));
            long r = z == null ? -1 : z.rank(a.buffer(), a.offset(2), a.length(2), reverse);
            if (r < 0) {
                s.out().nullBulk();
            } else {
                s.out().integer(r);
            }
        } finally {
            seg.unlock();
        }
    }

    // ZSCAN key cursor [MATCH pattern] [COUNT count]
    static void zscan(Session s, Args a) {
        MemberScan opt = MemberScan.cursor(a, 2);
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            ZSetValue z = SetKeys.zset(Keys.read(s, seg, a, 1, h));
            if (z == null) {
                MemberScan.emptyReply(s.out());
                return;
            }
            opt.options(a, 2);
            MemberScan.Collector c = new MemberScan.Collector(opt, a);
            long next = z.scan(opt.cursor, opt.count, c::add);
            c.reply(s.out(), next, true);
        } finally {
            seg.unlock();
        }
    }
}
