package dev.spinel.server.commands.stream;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;

/**
 * The options shared by XADD and XTRIM (Redis 7.0's streamParseAddOrTrimArgsOrReply): NOMKSTREAM,
 * MAXLEN|MINID [=|~] threshold, LIMIT, and for XADD the ID. Approximate trimming without LIMIT gets
 * Redis's default cap (100 × stream-node-max-entries); the append-only log replays with no cap,
 * since the trim it logs is already exact. Parsed before any lock is taken. Not thread-safe (one per call).
 */
final class TrimArgs {
    private static final RedisError BOTH = new RedisError(
            "ERR syntax error, MAXLEN and MINID options at the same time are not compatible");

    boolean noMkStream;
    boolean byMaxLen;
    boolean byMinId;
    boolean approx;
    long maxLen;
    long minMs;
    long minSeq;
    long limit;
    /** Argument index of the threshold (the approximation sign, if any, is just before it). */
    int thresholdPos;
    /** XADD: argument index of the ID. */
    int idPos;
    boolean idGiven;
    boolean seqGiven;
    long idMs;
    long idSeq;

    static TrimArgs parse(Session s, Args a, boolean xadd) {
        TrimArgs t = new TrimArgs();
        boolean limitGiven = false;
        int i = 2;
        for (; i < a.count(); i++) {
            int more = a.count() - 1 - i;
            if (xadd && a.length(i) == 1 && a.byteAt(i, 0) == '*') {
                break;
            } else if (a.is(i, "MAXLEN") && more > 0) {
                if (t.byMaxLen || t.byMinId) {
                    throw BOTH;
                }
                i = t.approxSign(a, i, more);
                t.maxLen = StreamCommands.parseLong(a, i + 1);
                if (t.maxLen < 0) {
                    throw new RedisError("ERR The MAXLEN argument must be >= 0.");
                }
                i++;
                t.byMaxLen = true;
                t.thresholdPos = i;
            } else if (a.is(i, "MINID") && more > 0) {
                if (t.byMaxLen || t.byMinId) {
                    throw BOTH;
                }
                i = t.approxSign(a, i, more);
                Streams.Id id = Streams.parseId(a, i + 1, 0, true, false);
                t.minMs = id.ms();
                t.minSeq = id.seq();
                i++;
                t.byMinId = true;
                t.thresholdPos = i;
            } else if (a.is(i, "LIMIT") && more > 0) {
                t.limit = StreamCommands.parseLong(a, i + 1);
                if (t.limit < 0) {
                    throw new RedisError("ERR The LIMIT argument must be >= 0.");
                }
                limitGiven = true;
                i++;
            } else if (xadd && a.is(i, "NOMKSTREAM")) {
                t.noMkStream = true;
            } else if (xadd) {
                Streams.Id id = Streams.parseId(a, i, 0, true, true);
                t.idGiven = true;
                t.seqGiven = id.seqGiven();
                t.idMs = id.ms();
                t.idSeq = id.seq();
                break;
            } else {
                throw Errors.SYNTAX;
            }
        }
        t.idPos = i;
        boolean strategy = t.byMaxLen || t.byMinId;
        if (t.limit != 0 && !strategy) {
            throw new RedisError("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
        }
        if (!xadd && !strategy) {
            throw new RedisError("ERR syntax error, XTRIM must be called with a trimming strategy");
        }
        if (s.replaying()) {
            t.limit = 0; // the log holds exact trims (see StreamCommands.rewriteTrim)
        } else if (limitGiven) {
            if (!t.approx) {
                throw new RedisError("ERR syntax error, LIMIT cannot be used without the special ~ option");
            }
        } else if (t.approx) {
            long nodeEntries = s.engine().config().streamNodeMaxEntries.value();
            t.limit = 100 * nodeEntries;
            if (t.limit <= 0 || t.limit > 1_000_000) {
                t.limit = 10_000;
            }
        } else {
            t.limit = 0;
        }
        return t;
    }

    /** Reads an optional {@code ~} or {@code =} after MAXLEN/MINID at {@code i}; returns the index before the threshold. */
    private int approxSign(Args a, int i, int more) {
        approx = false;
        if (more >= 2 && a.length(i + 1) == 1) {
            byte c = a.byteAt(i + 1, 0);
            if (c == '~') {
                approx = true;
                return i + 1;
            } else if (c == '=') {
                return i + 1;
            }
        }
        return i;
    }
}
