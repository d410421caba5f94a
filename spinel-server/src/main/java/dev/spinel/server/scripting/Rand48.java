package dev.spinel.server.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

/**
 * Redis's {@code math.random} for scripts: its own 48-bit linear congruential generator
 * ({@code redisLrand48}, the drand48 recurrence) so that a script's random numbers do not depend on
 * the platform: drand48's default state at start (as a fresh redis-server), reseeded by
 * {@code math.randomseed}; the range rules of Lua 5.1's
 * {@code math.random}.
 *
 * <p>Not thread-safe (scripts run one at a time).
 */
final class Rand48 {
    private static final long MASK = (1L << 48) - 1;
    private static final int MAX = Integer.MAX_VALUE;
    /** Redis's initial state (drand48's default: 0x1234ABCD330E), before any math.randomseed. */
    private long x = 0x1234ABCD330EL;

    void seed(int s) {
        x = ((s & 0xffffffffL) << 16 | 0x330E) & MASK;
    }

    int next() {
        x = (0x5DEECE66DL * x + 0xB) & MASK;
        return (int) (x >>> 17);
    }

    Varargs random(Varargs args) {
        double r = (double) (next() % MAX) / (double) MAX;
        switch (args.narg()) {
            case 0 -> {
                return LuaValue.valueOf(r);
            }
            case 1 -> {
                int u = (int) args.checkdouble(1);
                if (u < 1) {
                    throw new LuaError("bad argument #1 to 'random' (interval is empty)");
                }
                return LuaValue.valueOf(Math.floor(r * u) + 1);
            }
            case 2 -> {
                int l = (int) args.checkdouble(1);
                int u = (int) args.checkdouble(2);
                if (l > u) {
                    throw new LuaError("bad argument #2 to 'random' (interval is empty)");
                }
                return LuaValue.valueOf(Math.floor(r * (u - l + 1)) + l);
            }
            default -> throw new LuaError("wrong number of arguments");
        }
    }
}
