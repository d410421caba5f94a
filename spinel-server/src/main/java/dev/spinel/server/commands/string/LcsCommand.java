package dev.spinel.server.commands.string;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.StripeLocks;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * LCS: the longest common subsequence of two strings, by the textbook dynamic programme, walked
 * back exactly as Redis's lcsCommand walks it so that the reported match ranges are the same.
 *
 * <p>Both values are read in place under their stripes' locks, held until the reply is written (a string grown
 * in place, {@code GrowableString}, may change once they are released; Redis too runs the whole command
 * before any other). The table is bounded by {@code proto-max-bulk-len} before it is allocated, as in Redis.
 *
 * <p>Thread-safety: stateless.
 */
final class LcsCommand {
    private LcsCommand() {
    }

    static final RedisError NOT_STRINGS = new RedisError("ERR The specified keys must contain string values");
    static final RedisError LEN_AND_IDX =
            new RedisError("ERR If you want both the length and indexes, please just use IDX.");
    static final RedisError TABLE_TOO_BIG =
            new RedisError("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
    static final RedisError TABLE_ALLOC =
            new RedisError("ERR Insufficient memory, failed allocating transient memory for LCS");
    private static final byte[] EMPTY = new byte[0];
    private static final byte[] MATCHES = "matches".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LEN = "len".getBytes(StandardCharsets.US_ASCII);

    // LCS key1 key2 [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN]
    static void lcs(Session s, Args a) {
        Database db = s.db();
        StripeLocks locks = s.locks();
        locks.add(db, a.buffer(), a.offset(1), a.length(1)).add(db, a.buffer(), a.offset(2), a.length(2));
        locks.lock();
        try {
            Entry ex = entry(s, db, a, 1);
            Entry ey = entry(s, db, a, 2);
            if ((ex != null && !ex.isString()) || (ey != null && !ey.isString())) {
                throw NOT_STRINGS;
            }
            boolean getLen = false;
            boolean getIdx = false;
            boolean withMatchLen = false;
            long minMatchLen = 0;
            for (int j = 3; j < a.count(); j++) {
                boolean more = j + 1 < a.count();
                if (a.is(j, "IDX")) {
                    getIdx = true;
                } else if (a.is(j, "LEN")) {
                    getLen = true;
                } else if (a.is(j, "WITHMATCHLEN")) {
                    withMatchLen = true;
                } else if (a.is(j, "MINMATCHLEN") && more) {
                    minMatchLen = Math.max(0, NumberArgs.parseLong(a, ++j));
                } else {
                    throw Errors.SYNTAX;
                }
            }
            if (getLen && getIdx) {
                throw LEN_AND_IDX;
            }
            int xlen = ex == null ? 0 : ex.stringLength();
            int ylen = ey == null ? 0 : ey.stringLength();
            int[] table = table(s, xlen, ylen);
            byte[] x = ex == null ? EMPTY : Keys.stringInPlace(ex);
            byte[] y = ey == null ? EMPTY : Keys.stringInPlace(ey);
            compute(s.out(), x, xlen, y, ylen, table, getLen, getIdx, withMatchLen, minMatchLen);
        } finally {
            locks.unlock();
        }
    }

    /** The entry at key argument {@code i}, or {@code null} when the key is missing. */
    private static Entry entry(Session s, Database db, Args a, int i) {
        int h = Keys.hash(a, i);
        return Keys.read(s, db.segment(h), a, i, h);
    }

    private static int[] table(Session s, int alen, int blen) {
        long cells = (alen + 1L) * (blen + 1L);
        if (cells * Integer.BYTES > s.engine().config().protoMaxBulkLen.value()) {
            throw TABLE_TOO_BIG;
        }
        if (cells > Integer.MAX_VALUE - 8) {
            throw TABLE_ALLOC;
        }
        try {
            return new int[(int) cells];
        } catch (OutOfMemoryError e) {
            throw TABLE_ALLOC;
        }
    }

    private static void compute(ReplyBuffer out, byte[] a, int alen, byte[] b, int blen, int[] lcs, boolean getLen,
                                boolean getIdx, boolean withMatchLen, long minMatchLen) {
        int w = blen + 1; // LCS(i, j) is lcs[j + i * w]: the LCS length of a[0..i-1] and b[0..j-1]
        for (int i = 1; i <= alen; i++) {
            for (int j = 1; j <= blen; j++) {
                if (a[i - 1] == b[j - 1]) {
                    lcs[j + i * w] = lcs[(j - 1) + (i - 1) * w] + 1;
                } else {
                    lcs[j + i * w] = Math.max(lcs[j + (i - 1) * w], lcs[(j - 1) + i * w]);
                }
            }
        }
        int length = lcs[blen + alen * w];
        if (getLen) {
            out.integer(length);
            return;
        }
        // Walk back from the end; the string is built backwards, the ranges are emitted as found.
        byte[] result = new byte[length];
        int[] ranges = getIdx ? new int[20] : null; // aStart, aEnd, bStart, bEnd, len per match
        int count = 0;
        int idx = length;
        int aStart = alen; // alen means "no range open"
        int aEnd = 0;
        int bStart = 0;
        int bEnd = 0;
        int i = alen;
        int j = blen;
        while (i > 0 && j > 0) {
            boolean emit = false;
            if (a[i - 1] == b[j - 1]) {
                result[idx - 1] = a[i - 1];
                if (aStart == alen) {
                    aStart = i - 1;
                    aEnd = i - 1;
                    bStart = j - 1;
                    bEnd = j - 1;
                } else if (aStart == i && bStart == j) {
                    aStart--; // contiguous: extend the range backwards
                    bStart--;
                } else {
                    emit = true;
                }
                if (aStart == 0 || bStart == 0) {
                    emit = true; // matched the first byte of a string: the walk ends here
                }
                idx--;
                i--;
                j--;
            } else {
                if (lcs[j + (i - 1) * w] > lcs[(j - 1) + i * w]) {
                    i--;
                } else {
                    j--;
                }
                if (aStart != alen) {
                    emit = true;
                }
            }
            int matchLen = aEnd - aStart + 1;
            if (emit) {
                if (getIdx && (minMatchLen == 0 || matchLen >= minMatchLen)) {
                    if (count * 5 == ranges.length) {
                        ranges = Arrays.copyOf(ranges, ranges.length * 2);
                    }
                    int k = count * 5;
                    ranges[k] = aStart;
                    ranges[k + 1] = aEnd;
                    ranges[k + 2] = bStart;
                    ranges[k + 3] = bEnd;
                    ranges[k + 4] = matchLen;
                    count++;
                }
                aStart = alen;
            }
        }
        if (!getIdx) {
            out.bulk(result);
            return;
        }
        out.map(2);
        out.bulk(MATCHES);
        out.array(count);
        for (int k = 0; k < count * 5; k += 5) {
            out.array(withMatchLen ? 3 : 2);
            out.array(2).integer(ranges[k]).integer(ranges[k + 1]);
            out.array(2).integer(ranges[k + 2]).integer(ranges[k + 3]);
            if (withMatchLen) {
                out.integer(ranges[k + 4]);
            }
        }
        out.bulk(LEN);
        out.integer(length);
    }
}
