package dev.spinel.protocol;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Expected values are redis-server 7.0.15's HINCRBYFLOAT answers. */
class LongDoubleTest {
    private static BigDecimal p(String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        return LongDouble.parse(b, 0, b.length);
    }

    private static String sum(String a, String b) {
        return LongDouble.format(LongDouble.add(p(a), p(b)));
    }

    @Test
    void matchesRedisLongDoubleArithmetic() {
        assertEquals("10.6", sum("10.5", "0.1"));
        assertEquals("100000000000000000008", sum("10.6", "1e20"));
        assertEquals("100000000000000000000", sum("0", "1e20"));
        assertEquals("0", sum("0", "-0.0"));
        assertEquals("0", sum("0", "1.23e-20"));
        assertEquals("9223372036854775808", sum("9223372036854775807", "1"));
        assertEquals("0", sum("1", "-1.0000000000000000001"));
        assertEquals("0.3", sum("0.1", "0.2"));
        assertEquals("16.5", sum("0x10", "0x.8"));
        assertEquals("0", sum("0", "1e-4950"));
    }

    @Test
    void rejectsWhatStrtoldRejects() {
        assertThrows(NumberFormatException.class, () -> p("abc"));
        assertThrows(NumberFormatException.class, () -> p(" 1"));
        assertThrows(NumberFormatException.class, () -> p("1e5000"));
        assertThrows(NumberFormatException.class, () -> p("nan"));
        assertNull(p("inf"));
        assertNull(p("-Infinity"));
    }
}
