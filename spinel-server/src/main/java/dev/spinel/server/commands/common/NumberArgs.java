package dev.spinel.server.commands.common;

import dev.spinel.protocol.Args;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Numeric arguments as every command family reads them, with Redis's error texts: integers, a
 * blocking command's timeout (Redis's long double arithmetic), the largest count a random-pick reply
 * may build. Shared so that no family needs another family's helpers for its arguments.
 *
 * <p>Thread-safety: stateless.
 */
public final class NumberArgs {
    /** Largest reply a negative-count random command may build (one array header holds an int). */
    public static final long MAX_REPLY_ELEMENTS = 100_000_000L;
    static final RedisError TIMEOUT_NOT_FLOAT = new RedisError("ERR timeout is not a float or out of range");
    static final RedisError TIMEOUT_NEGATIVE = new RedisError("ERR timeout is negative");

    private NumberArgs() {
    }

    /** Argument {@code i} as a long, or "value is not an integer or out of range". */
    public static long parseLong(Args a, int i) {
        try {
            return a.parseLong(i);
        } catch (NumberFormatException e) {
            throw Errors.NOT_INTEGER;
        }
    }

    /** Parses a long, answering {@code error} when it is not one. */
    public static long parseLongOr(Args a, int i, RedisError error) {
        try {
            return a.parseLong(i);
        } catch (NumberFormatException e) {
            throw error;
        }
    }

    /**
     * A blocking command's timeout in seconds, converted as Redis 7.0 does on x86-64: parsed by strtold into an
     * 80-bit long double (64-bit mantissa; underflow to 0 or overflow is "not a float or out of range"), times
     * 1000 in long double, rounded up to whole milliseconds; a value that does not fit a C long long becomes
     * negative (x86 conversion), hence "timeout is negative" for inf and 1e300. Returns relative ms, 0 meaning
     * forever. The arithmetic is emulated exactly: a double's 53 bits give other answers near 2^63 ms.
     */
    public static long timeoutMillis(Args a, int i) {
        String str = a.string(i);
        try {
            a.parseDouble(i); // Redis's syntax checks (no spaces, no nan, ...)
        } catch (NumberFormatException e) {
            hexFloat(str); // strtold also reads hexadecimal floats ("0x10" = 16 seconds)
        }
        boolean neg = str.startsWith("-");
        String body = neg || str.startsWith("+") ? str.substring(1) : str;
        if (body.startsWith("i") || body.startsWith("I")) {
            throw TIMEOUT_NEGATIVE; // inf * 1000 converts to LLONG_MIN
        }
        BigInteger num;
        BigInteger den = BigInteger.ONE;
        if (body.startsWith("0x") || body.startsWith("0X")) {
            String h = body.substring(2);
            int pi = Math.max(h.indexOf('p'), h.indexOf('P'));
            long exp2 = 0;
            if (pi >= 0) {
                exp2 = parseExponent(h.substring(pi + 1));
                h = h.substring(0, pi);
            }
            int dot = h.indexOf('.');
            if (dot >= 0) {
                exp2 -= 4L * (h.length() - dot - 1);
                h = h.substring(0, dot) + h.substring(dot + 1);
            }
            num = h.isEmpty() ? BigInteger.ZERO : new BigInteger(h, 16);
            if (num.signum() != 0 && (exp2 + num.bitLength() > 16400 || exp2 + num.bitLength() < -16500)) {
                throw TIMEOUT_NOT_FLOAT; // far outside the long double range
            }
            if (exp2 >= 0) {
                num = num.shiftLeft((int) exp2);
            } else {
                den = BigInteger.ONE.shiftLeft((int) -exp2);
            }
        } else {
            BigDecimal v;
            try {
                v = new BigDecimal(body);
            } catch (NumberFormatException | ArithmeticException e) {
                throw TIMEOUT_NOT_FLOAT;
            }
            num = v.unscaledValue();
            if (num.signum() != 0) {
                long exp10 = (long) v.precision() - v.scale();
                if (exp10 > 4940 || exp10 < -4960) {
                    throw TIMEOUT_NOT_FLOAT; // far outside the long double range
                }
            }
            if (v.scale() <= 0) {
                num = num.multiply(BigInteger.TEN.pow(-v.scale()));
            } else {
                den = BigInteger.TEN.pow(v.scale());
            }
        }
        if (num.signum() == 0) {
            return 0;
        }
        LongDouble x = roundLongDouble(num, den);
        if (x == null) {
            throw TIMEOUT_NOT_FLOAT; // strtold: ERANGE with 0 or HUGE_VAL
        }
        // x = q * 2^-s; the product by 1000 is rounded to a long double again
        BigInteger q = x.q().multiply(BigInteger.valueOf(1000));
        long s = x.s();
        LongDouble ms = s >= 0 ? roundLongDouble(q, BigInteger.ONE.shiftLeft((int) s))
                : roundLongDouble(q.shiftLeft((int) -s), BigInteger.ONE);
        if (ms == null) {
            throw TIMEOUT_NEGATIVE; // inf
        }
        BigInteger m = ms.q();
        BigInteger whole;
        if (ms.s() <= 0) {
            whole = m.shiftLeft((int) -ms.s());
        } else {
            whole = m.shiftRight((int) ms.s());
            if (!neg && !m.equals(whole.shiftLeft((int) ms.s()))) {
                whole = whole.add(BigInteger.ONE); // ceill of a positive fraction
            }
        }
        if (neg) {
            whole = whole.negate(); // ceill of a negative value: -floor(|x|); -0 stays 0
        }
        if (whole.signum() < 0 || whole.bitLength() > 63) {
            throw TIMEOUT_NEGATIVE;
        }
        return whole.longValueExact();
    }

    private static long parseExponent(String e) {
        try {
            return Math.max(-1_000_000, Math.min(1_000_000, Long.parseLong(e.startsWith("+") ? e.substring(1) : e)));
        } catch (NumberFormatException ex) {
            return e.startsWith("-") ? -1_000_000 : 1_000_000;
        }
    }

    /**
     * Rounds num/den (positive) to an x87 long double, to nearest even: the value q * 2^-s (q at most 64 bits),
     * or null on underflow to 0 or overflow.
     */
    private static LongDouble roundLongDouble(BigInteger num, BigInteger den) {
        long s = 63L - (num.bitLength() - den.bitLength());
        BigInteger[] qr;
        while (true) {
            s = Math.min(s, 16445); // below 2^-16382 the mantissa loses bits (subnormals)
            qr = s >= 0 ? num.shiftLeft((int) s).divideAndRemainder(den)
                    : num.divideAndRemainder(den.shiftLeft((int) -s));
            int bits = qr[0].bitLength();
            if (bits > 64) {
                s--;
            } else if (bits < 64 && s < 16445) {
                s++;
            } else {
                break;
            }
        }
        BigInteger q = qr[0];
        BigInteger divisor = s >= 0 ? den : den.shiftLeft((int) -s);
        int c = qr[1].shiftLeft(1).compareTo(divisor);
        if (c > 0 || c == 0 && q.testBit(0)) {
            q = q.add(BigInteger.ONE);
            if (q.bitLength() > 64) {
                q = q.shiftRight(1);
                s--;
            }
        }
        if (q.signum() == 0 || 63 - s > 16383) {
            return null;
        }
        return new LongDouble(q, s);
    }

    private record LongDouble(BigInteger q, long s) {
    }

    private static double hexFloat(String s) {
        String body = s.startsWith("+") || s.startsWith("-") ? s.substring(1) : s;
        if (!(body.startsWith("0x") || body.startsWith("0X")) || body.length() < 3
                || !body.substring(2).matches("[0-9a-fA-F]*\\.?[0-9a-fA-F]*([pP][+-]?[0-9]+)?")) {
            throw TIMEOUT_NOT_FLOAT;
        }
        try {
            return Double.parseDouble(body.matches(".*[pP].*") ? s : s + "p0");
        } catch (NumberFormatException e) {
            throw TIMEOUT_NOT_FLOAT;
        }
    }
}
