package dev.spinel.server.scripting;

import org.junit.jupiter.api.Test;
import org.luaj.vm2.LuaValue;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The parts of scripting that reproduce Redis's C code exactly: its random generator and %.17g. */
class LuaPiecesTest {
    @Test
    void randomMatchesAFreshRedisServer() {
        // redis-server 7.0.15, fresh start: EVAL "return {math.random(100), math.random(100), math.random(1,1000)}" 0
        Rand48 r = new Rand48();
        assertEquals(40, r.random(LuaValue.valueOf(100)).arg1().toint());
        assertEquals(85, r.random(LuaValue.valueOf(100)).arg1().toint());
        assertEquals(354, r.random(LuaValue.varargsOf(LuaValue.valueOf(1), LuaValue.valueOf(1000))).arg1().toint());
        // math.randomseed(0) return {math.random(100), math.random(100), math.random(100)} → 18 75 10
        r.seed(0);
        assertEquals(18, r.random(LuaValue.valueOf(100)).arg1().toint());
        assertEquals(75, r.random(LuaValue.valueOf(100)).arg1().toint());
        assertEquals(10, r.random(LuaValue.valueOf(100)).arg1().toint());
        // math.randomseed(42) return math.random(100) → 75
        r.seed(42);
        assertEquals(75, r.random(LuaValue.valueOf(100)).arg1().toint());
    }

    @Test
    void numbersAsCommandArgumentsArePercent17g() {
        assertEquals("3", LuaReplies.formatNumber(3));
        assertEquals("-2.5", LuaReplies.formatNumber(-2.5));
        assertEquals("0.10000000000000001", LuaReplies.formatNumber(0.1));
        assertEquals("1e+20", LuaReplies.formatNumber(1e20));
        assertEquals("1.152921504606847e+18", LuaReplies.formatNumber(Math.pow(2, 60)));
        assertEquals("12345678901234", LuaReplies.formatNumber(12345678901234.0));
        assertEquals("1.0000000000000001e-05", LuaReplies.formatNumber(0.00001));
        assertEquals("0.0001", LuaReplies.formatNumber(0.0001));
        assertEquals("inf", LuaReplies.formatNumber(Double.POSITIVE_INFINITY));
    }
}
