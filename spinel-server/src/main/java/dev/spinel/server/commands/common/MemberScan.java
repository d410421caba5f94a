package dev.spinel.server.commands.common;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Glob;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The cursor and MATCH/COUNT options of SSCAN and ZSCAN (Redis's scanGenericCommand for a key), and the
 * collector that filters a step's elements by the pattern before replying {@code [cursor, [elements]]}.
 * One instance per call; not shared.
 */
public final class MemberScan {
    private static final RedisError INVALID_CURSOR = new RedisError("ERR invalid cursor");

    public long cursor;
    public int count = 10;
    int matchArg = -1;

    /** Parses the cursor; Redis does this before looking the key up, the options after. */
    public static MemberScan cursor(Args a, int cursorArg) {
        MemberScan o = new MemberScan();
        o.cursor = parseCursor(a, cursorArg);
        return o;
    }

    /** As C's strtoul with Redis's checks: optional sign, digits only, no overflow; "-1" wraps. */
    private static long parseCursor(Args a, int i) {
        int len = a.length(i);
        int p = 0;
        boolean neg = false;
        if (len > 0 && (a.byteAt(i, 0) == '-' || a.byteAt(i, 0) == '+')) {
            neg = a.byteAt(i, 0) == '-';
            p = 1;
        }
        if (p == len) {
            throw INVALID_CURSOR;
        }
        long v = 0;
        for (; p < len; p++) {
            int d = a.byteAt(i, p) - '0';
            if (d < 0 || d > 9 || Long.compareUnsigned(v, Long.divideUnsigned(-1L, 10)) > 0) {
                throw INVALID_CURSOR;
            }
            long next = v * 10 + d;
            if (Long.compareUnsigned(next, v * 10) < 0) {
                throw INVALID_CURSOR;
            }
            v = next;
        }
        return neg ? -v : v;
    }

    /** Parses MATCH/COUNT (only once the key is known to exist with the right type, as Redis). */
    public MemberScan options(Args a, int cursorArg) {
        MemberScan o = this;
        for (int i = cursorArg + 1; i < a.count(); i += 2) {
            if (i + 1 >= a.count()) {
                throw Errors.SYNTAX;
            }
            if (a.is(i, "COUNT")) {
                long c = NumberArgs.parseLong(a, i + 1);
                if (c < 1) {
                    throw Errors.SYNTAX;
                }
                o.count = (int) Math.min(c, Integer.MAX_VALUE);
            } else if (a.is(i, "MATCH")) {
                o.matchArg = i + 1;
            } else {
                throw Errors.SYNTAX;
            }
        }
        return o;
    }

    public static void emptyReply(ReplyBuffer out) {
        out.array(2);
        out.bulk(new byte[] {'0'});
        out.array(0);
    }

    /** Collects one step's elements (and scores for ZSCAN), dropping those the pattern rejects. */
    public static final class Collector {
        private final MemberScan opt;
        private final Args args;
        private final boolean matchAll;
        private final List<byte[]> members = new ArrayList<>();
        private double[] scores = new double[16];

        public Collector(MemberScan opt, Args args) {
            this.opt = opt;
            this.args = args;
            this.matchAll = opt.matchArg < 0
                    || (args.length(opt.matchArg) == 1 && args.byteAt(opt.matchArg, 0) == '*');
        }

        private boolean matches(byte[] m) {
            return matchAll || Glob.matches(args.buffer(), args.offset(opt.matchArg), args.length(opt.matchArg),
                    m, 0, m.length, false);
        }

        public void add(byte[] member) {
            if (matches(member)) {
                members.add(member);
            }
        }

        public void add(byte[] member, double score) {
            if (matches(member)) {
                if (members.size() == scores.length) {
                    scores = Arrays.copyOf(scores, scores.length * 2);
                }
                scores[members.size()] = score;
                members.add(member);
            }
        }

        public void reply(ReplyBuffer out, long next, boolean withScores) {
            out.array(2);
            out.bulk(Long.toUnsignedString(next).getBytes(StandardCharsets.US_ASCII));
            out.array(withScores ? members.size() * 2 : members.size());
            for (int i = 0; i < members.size(); i++) {
                out.bulk(members.get(i));
                if (withScores) {
                    out.bulk(ZScores.format(scores[i]));
                }
            }
        }
    }
}
