package dev.spinel.protocol;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Long double emulation, with expected digits taken from redis-server 7.0.15's INCRBYFLOAT (the
 * server-side randomised differential test covers many more).
 */
class LongDoubleTest {
    private static BigDecimal p(String s) {
        return LongDouble.parse(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static String incr(String value, String by) {
        return LongDouble.formatHuman(LongDouble.add(p(value), p(by)));
    }

    @Test
    void sumsPrintLikeRedis() {
        assertEquals("10.6", incr("10.5", "0.1"));
        assertEquals("0.3", incr("0.1", "0.2"));
        assertEquals("0.30000000000000001", incr("0.3", "1e-17"));
        assertEquals("5001", incr("5.0e3", "1"));
        assertEquals("1.23456789012345679", incr("0", "1.23456789012345678901234"));
        assertEquals("12345678901234567890", incr("0", "12345678901234567890.5"));
        assertEquals("0.00000381469726562", incr("0", "0.000003814697265625")); // exact tie: to even
        assertEquals("0", incr("0", "-1e-20")); // "-0" is written "0"
        assertEquals("3", incr("0", "0X1.8P1"));
    }

    @Test
    void rangeIsTheX87s() {
        assertEquals("99999999999999999996685879655845645660560099847415567207797047994921734868838061872100126921888539320446747225054013223152134749593960583597420814430196418767959100019603190778663109604507106667939153395788938914560543563061268364901618630217086589253444881623791300855757318142424510452728255046343928578048",
                incr("10.6", "1e308"));
        assertEquals("0", incr("0", "1e-4940")); // subnormal, accepted
        assertThrows(NumberFormatException.class, () -> p("1e-4960")); // underflows to zero
        assertThrows(NumberFormatException.class, () -> p("1e5000")); // overflows
        assertNull(LongDouble.add(p("0x1.fffffffffffffffep16383"), p("0x1.fffffffffffffffep16383")));
    }

    @Test
    void syntaxIsStrtolds() {
        assertNull(p("inf"));
        assertNull(p("-Infinity"));
        for (String bad : new String[]{"", " 1", "1 ", "nan", "1e", "0x", "0x1p", ".", "-", "infin", "abc", "1e+"}) {
            assertThrows(NumberFormatException.class, () -> p(bad), bad);
        }
        assertThrows(NumberFormatException.class, () -> p("1".repeat(5120)));
        assertEquals(0, p("0e1000000000").signum());
    }
}
