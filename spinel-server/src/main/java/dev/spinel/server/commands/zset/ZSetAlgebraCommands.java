package dev.spinel.server.commands.zset;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.common.ZScores;
import dev.spinel.server.commands.key.SetKeys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.types.SetLimits;
import dev.spinel.store.types.SetValue;
import dev.spinel.store.types.ZSetValue;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;

/**
 * ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD (Redis's zunionInterDiffGenericCommand). Inputs
 * may be sorted sets or plain sets (every member scoring 1). Sources are ordered by size as Redis orders
 * them, so that sums are added in the same order and give the same floating-point results. All stripes
 * involved are locked together.
 */
final class ZSetAlgebraCommands {
    private static final RedisError WEIGHT = new RedisError("ERR weight value is not a float");
    private static final RedisError LIMIT_NEGATIVE = new RedisError("ERR LIMIT can't be negative");

    private enum Op { UNION, INTER, DIFF }

    private enum Agg { SUM, MIN, MAX }

    /** One input: a sorted set, a set, or nothing (missing key), with its weight. */
    private static final class Source {
        ZSetValue zset;
        SetValue set;
        double weight = 1;

        long size() {
            return zset != null ? zset.size() : set != null ? set.size() : 0;
        }

        boolean same(Source o) {
            return (zset != null && zset == o.zset) || (set != null && set == o.set);
        }

        /** The member's score in this input (weight not applied), or NaN if absent. */
        double score(byte[] m) {
            if (zset != null) {
                return zset.score(m);
            }
            return set != null && set.contains(m) ? 1 : Double.NaN;
        }
    }

    /** Receives the elements of a source in its order. */
    private interface ElementVisitor {
        void visit(byte[] member, double score);
    }

    private ZSetAlgebraCommands() {
    }

    static void register(CommandTable t, SetLimits limits) {
        t.register("zunion", (s, a) -> run(s, a, 1, -1, Op.UNION, false, limits));
        t.register("zinter", (s, a) -> run(s, a, 1, -1, Op.INTER, false, limits));
        t.register("zdiff", (s, a) -> run(s, a, 1, -1, Op.DIFF, false, limits));
        t.register("zunionstore", (s, a) -> run(s, a, 2, 1, Op.UNION, false, limits));
        t.register("zinterstore", (s, a) -> run(s, a, 2, 1, Op.INTER, false, limits));
        t.register("zdiffstore", (s, a) -> run(s, a, 2, 1, Op.DIFF, false, limits));
        t.register("zintercard", (s, a) -> run(s, a, 1, -1, Op.INTER, true, limits));
    }

    // ZUNION numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]
    // ZINTER numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]
    // ZDIFF numkeys key [key ...] [WITHSCORES]
    // ZUNIONSTORE / ZINTERSTORE destination numkeys key [key ...] [WEIGHTS ...] [AGGREGATE ...]
    // ZDIFFSTORE destination numkeys key [key ...]
    // ZINTERCARD numkeys key [key ...] [LIMIT limit]
    private static void run(Session s, Args a, int numkeysArg, int dstArg, Op op, boolean cardOnly, SetLimits limits) {
        long setnum = NumberArgs.parseLong(a, numkeysArg);
        if (setnum < 1) {
            throw new RedisError("ERR at least 1 input key is needed for '" + a.string(0).toLowerCase(Locale.ROOT)
                    + "' command");
        }
        if (setnum > a.count() - (numkeysArg + 1)) {
            throw Errors.SYNTAX;
        }
        int n = (int) setnum;
        int firstKey = numkeysArg + 1;
        try {
            SetKeys.lockKeys(s, a, firstKey, firstKey + n, dstArg);
            Source[] src = new Source[n];
            for (int i = 0; i < n; i++) {
                src[i] = new Source();
                Entry e = dstArg >= 0 ? SetKeys.write(s, a, firstKey + i) : SetKeys.read(s, a, firstKey + i);
                if (e != null) {
                    Object v = e.value();
                    if (v instanceof ZSetValue z) {
                        src[i].zset = z;
                    } else if (v instanceof SetValue set) {
                        src[i].set = set;
                    } else {
                        throw Errors.WRONGTYPE;
                    }
                }
            }
            Agg agg = Agg.SUM;
            boolean withScores = false;
            long limit = 0;
            int j = firstKey + n;
            while (j < a.count()) {
                int remaining = a.count() - j;
                if (op != Op.DIFF && !cardOnly && remaining >= n + 1 && a.is(j, "WEIGHTS")) {
                    j++;
                    for (int i = 0; i < n; i++, j++) {
                        src[i].weight = ZScores.weight(a, j, WEIGHT);
                    }
                } else if (op != Op.DIFF && !cardOnly && remaining >= 2 && a.is(j, "AGGREGATE")) {
                    j++;
                    if (a.is(j, "SUM")) {
                        agg = Agg.SUM;
                    } else if (a.is(j, "MIN")) {
                        agg = Agg.MIN;
                    } else if (a.is(j, "MAX")) {
                        agg = Agg.MAX;
                    } else {
                        throw Errors.SYNTAX;
                    }
                    j++;
                } else if (dstArg < 0 && !cardOnly && a.is(j, "WITHSCORES")) {
                    j++;
                    withScores = true;
                } else if (cardOnly && remaining >= 2 && a.is(j, "LIMIT")) {
                    j++;
                    try {
                        limit = a.parseLong(j);
                    } catch (NumberFormatException ex) {
                        throw LIMIT_NEGATIVE;
                    }
                    if (limit < 0) {
                        throw LIMIT_NEGATIVE;
                    }
                    j++;
                } else {
                    throw Errors.SYNTAX;
                }
            }
            if (op != Op.DIFF) {
                Arrays.sort(src, Comparator.comparingLong(Source::size)); // stable, smallest first
            }
            ZSetValue result = ZSetValue.createSkiplist();
            long card = 0;
            if (op == Op.INTER) {
                card = inter(src, agg, cardOnly ? null : result, limit);
            } else if (op == Op.UNION) {
                union(src, agg, result);
            } else {
                diff(src, result);
            }
            ReplyBuffer out = s.out();
            if (cardOnly) {
                out.integer(card);
                return;
            }
            if (dstArg >= 0) {
                if (result.size() > 0) {
                    result.convertToListpackIfNeeded(limits);
                }
                boolean changed = SetKeys.storeResult(s, a, dstArg, result, Notifications.ZSET,
                        op == Op.UNION ? "zunionstore" : op == Op.INTER ? "zinterstore" : "zdiffstore");
                if (changed) {
                    s.dirty(1);
                }
                out.integer(result.size());
                return;
            }
            ZSetRangeCommands.emit(out, result, 0, result.size(), 1, withScores);
        } finally {
            s.locks().unlock();
        }
    }

    private static void forEach(Source src, ElementVisitor v) {
        if (src.zset != null) {
            for (ZSetValue.Cursor c = src.zset.cursor(0); c.valid(); c.next()) {
                v.visit(c.member(), c.score());
            }
        } else if (src.set != null) {
            for (int p = src.set.first(); p >= 0; p = src.set.next(p)) {
                v.visit(src.set.member(p), 1);
            }
        }
    }

    private static double aggregate(double acc, double v, Agg agg) {
        return switch (agg) {
            case SUM -> {
                double r = acc + v;
                yield Double.isNaN(r) ? 0 : r; // inf + -inf
            }
            case MIN -> v < acc ? v : acc; // not Math.min: a NaN value must leave acc unchanged, as Redis
            case MAX -> v > acc ? v : acc;
        };
    }

    private static double weighted(double score, double weight) {
        double r = score * weight;
        return Double.isNaN(r) ? 0 : r; // inf * 0
    }

    private static long inter(Source[] src, Agg agg, ZSetValue result, long limit) {
        long[] card = {0};
        boolean[] stop = {false};
        if (src[0].size() == 0) {
            return 0;
        }
        forEach(src[0], (m, sc) -> {
            if (stop[0]) {
                return;
            }
            double score = weighted(sc, src[0].weight);
            for (int j = 1; j < src.length; j++) {
                double v = src[j].same(src[0]) ? sc : src[j].score(m);
                if (Double.isNaN(v)) {
                    return;
                }
                score = aggregate(score, v * src[j].weight, agg);
            }
            card[0]++;
            if (result != null) {
                result.insert(m.clone(), score, ALWAYS_SKIPLIST);
            } else if (limit > 0 && card[0] >= limit) {
                stop[0] = true;
            }
        });
        return card[0];
    }

    private static void union(Source[] src, Agg agg, ZSetValue result) {
        for (Source in : src) {
            forEach(in, (m, sc) -> {
                double score = weighted(sc, in.weight);
                double cur = result.score(m);
                if (Double.isNaN(cur)) {
                    result.insert(m.clone(), score, ALWAYS_SKIPLIST);
                } else {
                    double next = aggregate(cur, score, agg);
                    if (Double.doubleToRawLongBits(next) != Double.doubleToRawLongBits(cur)) { // -0 vs 0 too
                        result.updateScore(m, 0, m.length, next);
                    }
                }
            });
        }
    }

    private static void diff(Source[] src, ZSetValue result) {
        forEach(src[0], (m, sc) -> {
            for (int j = 1; j < src.length; j++) {
                if (src[j].same(src[0]) || !Double.isNaN(src[j].score(m))) {
                    return;
                }
            }
            result.insert(m.clone(), sc, ALWAYS_SKIPLIST);
        });
    }

    /** Results are built as skip lists (as Redis does) and converted once complete. */
    private static final SetLimits ALWAYS_SKIPLIST = new SetLimits().zsetMaxListpackEntries(0);

}
