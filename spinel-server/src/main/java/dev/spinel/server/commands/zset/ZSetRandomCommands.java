package dev.spinel.server.commands.zset;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.common.DistinctPicks;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.commands.key.SetKeys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Segment;
import dev.spinel.store.types.ZSetValue;

import java.util.concurrent.ThreadLocalRandom;

/**
 * ZRANDMEMBER (Redis's zrandmemberCommand): one random member, {@code count} distinct members (the whole
 * set, in order, when count ≥ size), or with a negative count members that may repeat.
 */
final class ZSetRandomCommands {
    private static final RedisError RANGE = new RedisError(
            "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
    private static final RedisError OUT_OF_RANGE = new RedisError("ERR value is out of range");

    private ZSetRandomCommands() {
    }

    static void register(CommandTable t) {
        t.register("zrandmember", ZSetRandomCommands::zrandmember);
    }

    // ZRANDMEMBER key [count [WITHSCORES]]
    static void zrandmember(Session s, Args a) {
        boolean withCount = a.count() >= 3;
        long count = 0;
        boolean withScores = false;
        if (withCount) {
            count = NumberArgs.parseLong(a, 2);
            if (count == Long.MIN_VALUE) {
                throw RANGE;
            }
            if (a.count() > 4 || (a.count() == 4 && !a.is(3, "WITHSCORES"))) {
                throw Errors.SYNTAX;
            }
            if (a.count() == 4) {
                withScores = true;
                if (count < -Long.MAX_VALUE / 2 || count > Long.MAX_VALUE / 2) {
                    throw OUT_OF_RANGE;
                }
            }
            if (count < -NumberArgs.MAX_REPLY_ELEMENTS) {
                // Redis would build the reply until memory runs out (with or without WITHSCORES)
                throw OUT_OF_RANGE;
            }
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            ZSetValue z = SetKeys.zset(Keys.read(s, seg, a, 1, h));
            ReplyBuffer out = s.out();
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            if (!withCount) {
                if (z == null) {
                    out.nullBulk();
                } else {
                    ZSetValue.Cursor c = z.cursor(rnd.nextLong(z.size()));
                    out.bulk(c.memberArray(), c.memberOffset(), c.memberLength());
                }
                return;
            }
            if (z == null || count == 0) {
                out.array(0);
                return;
            }
            long size = z.size();
            if (count < 0) {
                long n = -count;
                header(out, n, withScores);
                for (long k = 0; k < n; k++) {
                    element(out, z.cursor(rnd.nextLong(size)), withScores);
                }
                return;
            }
            if (count >= size) {
                // Redis's zset iterator walks from the tail: the whole set comes highest first
                ZSetRangeCommands.emit(out, z, size - 1, size, -1, withScores);
                return;
            }
            if (count * 3 <= size) {
                // few against many: random ranks, duplicates rejected (O(count log n))
                DistinctPicks seen = new DistinctPicks(count);
                header(out, count, withScores);
                for (long got = 0; got < count; ) {
                    long r = rnd.nextLong(size);
                    if (seen.add(r)) {
                        element(out, z.cursor(r), withScores);
                        got++;
                    }
                }
                return;
            }
            // many against the size: reservoir sample of ranks, shuffled
            long[] chosen = new long[(int) count];
            for (int i = 0; i < count; i++) {
                chosen[i] = i;
            }
            for (long r = count; r < size; r++) {
                long j = rnd.nextLong(r + 1);
                if (j < count) {
                    chosen[(int) j] = r;
                }
            }
            for (int i = chosen.length - 1; i > 0; i--) {
                int j = rnd.nextInt(i + 1);
                long t = chosen[i];
                chosen[i] = chosen[j];
                chosen[j] = t;
            }
            header(out, count, withScores);
            for (long r : chosen) {
                element(out, z.cursor(r), withScores);
            }
        } finally {
            seg.unlock();
        }
    }

    private static void header(ReplyBuffer out, long n, boolean withScores) {
        out.array((int) (withScores && !out.resp3() ? n * 2 : n));
    }

    private static void element(ReplyBuffer out, ZSetValue.Cursor c, boolean withScores) {
        if (withScores && out.resp3()) {
            out.array(2);
        }
        out.bulk(c.memberArray(), c.memberOffset(), c.memberLength());
        if (withScores) {
            out.doubleValue(c.score());
        }
    }
}
