package dev.spinel.server.commands.common;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.Numbers;
import dev.spinel.protocol.Strtod;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.types.LexRange;
import dev.spinel.store.types.ScoreRange;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Score and range arguments of the sorted-set commands, parsed with Redis's rules and error texts
 * (t_zset.c's zslParseRange and zslParseLexRange), and score formatting for bulk replies. Stateless.
 */
public final class ZScores {
    static final RedisError NOT_FLOAT_RANGE = new RedisError("ERR min or max is not a float");
    static final RedisError NOT_LEX_RANGE = new RedisError("ERR min or max not valid string range item");
    public static final RedisError NAN = new RedisError("ERR resulting score is not a number (NaN)");

    private ZScores() {
    }

    /** A score argument; "ERR value is not a valid float" otherwise. */
    public static double score(Args a, int i) {
        try {
            return Strtod.parseStrict(a.buffer(), a.offset(i), a.length(i));
        } catch (Strtod.Invalid e) {
            throw Errors.NOT_FLOAT;
        }
    }

    /** A WEIGHTS value (strict, as a score) or the given error. */
    public static double weight(Args a, int i, RedisError error) {
        try {
            return Strtod.parseStrict(a.buffer(), a.offset(i), a.length(i));
        } catch (Strtod.Invalid e) {
            throw error;
        }
    }

    /** {@code min max} of BYSCORE forms: numbers, {@code -inf}/{@code +inf}, '(' for exclusive. */
    public static ScoreRange scoreRange(Args a, int minArg, int maxArg) {
        boolean minEx = a.length(minArg) > 0 && a.byteAt(minArg, 0) == '(';
        boolean maxEx = a.length(maxArg) > 0 && a.byteAt(maxArg, 0) == '(';
        double min = bound(a, minArg, minEx);
        double max = bound(a, maxArg, maxEx);
        return new ScoreRange(min, minEx, max, maxEx);
    }

    private static double bound(Args a, int i, boolean exclusive) {
        int skip = exclusive ? 1 : 0;
        try {
            return Strtod.parseLenient(a.buffer(), a.offset(i) + skip, a.length(i) - skip);
        } catch (Strtod.Invalid e) {
            throw NOT_FLOAT_RANGE;
        }
    }

    /** {@code min max} of BYLEX forms: {@code [x}, {@code (x}, {@code -}, {@code +}. */
    public static LexRange lexRange(Args a, int minArg, int maxArg) {
        int minInf = lexInfinity(a, minArg);
        int maxInf = lexInfinity(a, maxArg);
        return new LexRange(lexValue(a, minArg, minInf), lexExclusive(a, minArg, minInf), minInf,
                lexValue(a, maxArg, maxInf), lexExclusive(a, maxArg, maxInf), maxInf);
    }

    /** -1 for "-", +1 for "+", 0 for a '['/'(' bound; the error for anything else. */
    private static int lexInfinity(Args a, int i) {
        int len = a.length(i);
        byte c = len == 0 ? 0 : a.byteAt(i, 0);
        if (len == 1 && c == '+') {
            return LexRange.POS;
        }
        if (len == 1 && c == '-') {
            return LexRange.NEG;
        }
        if (c != '(' && c != '[') {
            throw NOT_LEX_RANGE;
        }
        return 0;
    }

    private static byte[] lexValue(Args a, int i, int infinity) {
        return infinity != 0 ? null : Arrays.copyOfRange(a.buffer(), a.offset(i) + 1, a.offset(i) + a.length(i));
    }

    private static boolean lexExclusive(Args a, int i, int infinity) {
        return infinity == 0 && a.byteAt(i, 0) == '(';
    }

    /** A score as Redis 7.0 writes it in bulk strings (%.17g). */
    static byte[] format(double d) {
        return Numbers.formatDouble(d).getBytes(StandardCharsets.US_ASCII);
    }
}
