package dev.spinel.server.commands.hash;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.Glob;
import dev.spinel.store.Segment;
import dev.spinel.store.types.HashValue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/** HRANDFIELD and HSCAN: the hash commands that sample or iterate. */
public final class HashScanCommands {
    private static final RedisError OUT_OF_RANGE = new RedisError("ERR value is out of range");
    private static final RedisError COUNT_RANGE = new RedisError(
            "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
    private static final RedisError INVALID_CURSOR = new RedisError("ERR invalid cursor");

    private HashScanCommands() {
    }

    static void register(CommandTable t) {
        t.register("hrandfield", HashScanCommands::hrandfield);
        t.register("hscan", HashScanCommands::hscan);
    }

    // HRANDFIELD key [count [WITHVALUES]]
    static void hrandfield(Session s, Args a) {
        boolean withCount = a.count() >= 3;
        long count = 0;
        boolean withValues = false;
        if (withCount) {
            count = NumberArgs.parseLong(a, 2);
            if (count == Long.MIN_VALUE) {
                throw COUNT_RANGE;
            }
            if (a.count() == 4) {
                if (!a.is(3, "WITHVALUES")) {
                    throw Errors.SYNTAX;
                }
                withValues = true;
                if (count < -Long.MAX_VALUE / 2 || count > Long.MAX_VALUE / 2) {
                    throw OUT_OF_RANGE; // field-value pairs: Redis's range for a count it doubles
                }
            } else if (a.count() > 4) {
                throw Errors.SYNTAX;
            }
            if (count < -NumberArgs.MAX_REPLY_ELEMENTS && !s.engine().outputLimits().bounds(s)) {
                // Redis would build the reply until memory runs out; Spinel refuses, as SRANDMEMBER/ZRANDMEMBER
                // do, unless an output limit stops it (and closes the client) as it would stop Redis
                throw OUT_OF_RANGE;
            }
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            ReplyBuffer out = s.out();
            if (e == null) {
                if (withCount) {
                    out.array(0);
                } else {
                    out.nullBulk();
                }
                return;
            }
            HashValue hv = Hashes.hash(e);
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            if (!withCount) {
                out.bulk(hv.randomPair(rnd)[0]);
                return;
            }
            if (count == 0) {
                out.array(0);
                return;
            }
            boolean resp3Pairs = withValues && out.resp3();
            if (count < 0) {
                // repetitions allowed: independent picks
                long n = -count;
                out.array((int) (withValues && !resp3Pairs ? n * 2 : n));
                byte[][] all = hv.toArray();
                int pairs = all.length / 2;
                for (long i = 0; i < n && !out.discarding(); i++) { // stopped mid-run by the output limit
                    int p = rnd.nextInt(pairs);
                    writePair(out, all[2 * p], all[2 * p + 1], withValues, resp3Pairs);
                }
                return;
            }
            byte[][] all = hv.toArray();
            int pairs = all.length / 2;
            List<Integer> picks = new ArrayList<>();
            if (count >= pairs) {
                for (int i = 0; i < pairs; i++) {
                    picks.add(i);
                }
            } else {
                // distinct picks: a partial Fisher-Yates shuffle of the indexes
                int[] idx = new int[pairs];
                for (int i = 0; i < pairs; i++) {
                    idx[i] = i;
                }
                for (int i = 0; i < count; i++) {
                    int j = i + rnd.nextInt(pairs - i);
                    int t = idx[i];
                    idx[i] = idx[j];
                    idx[j] = t;
                    picks.add(idx[i]);
                }
            }
            out.array(withValues && !resp3Pairs ? picks.size() * 2 : picks.size());
            for (int p : picks) {
                writePair(out, all[2 * p], all[2 * p + 1], withValues, resp3Pairs);
            }
        } finally {
            seg.unlock();
        }
    }

    private static void writePair(ReplyBuffer out, byte[] f, byte[] v, boolean withValues, boolean resp3Pairs) {
        if (resp3Pairs) {
            out.array(2);
        }
        out.bulk(f);
        if (withValues) {
            out.bulk(v);
        }
    }

    // HSCAN key cursor [MATCH pattern] [COUNT count]
    static void hscan(Session s, Args a) {
        long cursor = parseCursor(a, 2);
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            ReplyBuffer out = s.out();
            if (e == null) {
                out.array(2);
                out.bulk("0");
                out.array(0);
                return;
            }
            HashValue hv = Hashes.hash(e);
            long count = 10;
            int matchArg = -1;
            for (int j = 3; j < a.count(); j++) {
                boolean more = j + 1 < a.count();
                if (a.is(j, "COUNT") && more) {
                    count = NumberArgs.parseLong(a, ++j);
                    if (count < 1) {
                        throw Errors.SYNTAX;
                    }
                } else if (a.is(j, "MATCH") && more) {
                    matchArg = ++j;
                } else {
                    throw Errors.SYNTAX;
                }
            }
            // A lone "*" matches everything: Redis skips the filter then.
            boolean filter = matchArg >= 0 && !(a.length(matchArg) == 1 && a.byteAt(matchArg, 0) == '*');
            List<byte[]> items = new ArrayList<>();
            int pat = matchArg;
            long next = hv.scan(cursor, (int) Math.min(count, Integer.MAX_VALUE), (k, ko, kl, v, vo, vl) -> {
                if (filter && !Glob.matches(a.buffer(), a.offset(pat), a.length(pat), k, ko, kl, false)) {
                    return;
                }
                items.add(Arrays.copyOfRange(k, ko, ko + kl));
                items.add(Arrays.copyOfRange(v, vo, vo + vl));
            });
            out.array(2);
            out.bulk(Long.toUnsignedString(next));
            out.array(items.size());
            for (byte[] b : items) {
                out.bulk(b);
            }
        } finally {
            seg.unlock();
        }
    }

    /** Redis's parseScanCursorOrReply: strtoul of the whole argument, no leading space. */
    static long parseCursor(Args a, int i) {
        int n = a.length(i);
        if (n == 0) {
            throw INVALID_CURSOR;
        }
        int p = 0;
        boolean neg = false;
        byte first = a.byteAt(i, 0);
        if (first == '+' || first == '-') {
            neg = first == '-';
            p = 1;
        }
        if (p == n || n - p > 20) {
            throw INVALID_CURSOR;
        }
        long v = 0;
        for (; p < n; p++) {
            byte c = a.byteAt(i, p);
            if (c < '0' || c > '9') {
                throw INVALID_CURSOR;
            }
            long d = c - '0';
            if (Long.compareUnsigned(v, Long.divideUnsigned(-1L - d, 10)) > 0) {
                throw INVALID_CURSOR;
            }
            v = v * 10 + d;
        }
        return neg ? -v : v;
    }
}
