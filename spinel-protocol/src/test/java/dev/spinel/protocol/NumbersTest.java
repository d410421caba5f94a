package dev.spinel.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Number parsing and formatting against Redis's string2ll and C's printf("%.17g"). */
class NumbersTest {
    private static long parse(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        return Numbers.parseLong(b, 0, b.length);
    }

    @Test
    void parseLongAcceptsWhatString2llAccepts() {
        assertEquals(0, parse("0"));
        assertEquals(-1, parse("-1"));
        assertEquals(1234567890123L, parse("1234567890123"));
        assertEquals(Long.MAX_VALUE, parse("9223372036854775807"));
        assertEquals(Long.MIN_VALUE, parse("-9223372036854775808"));
        // within a larger array, at an offset
        byte[] b = "xx42yy".getBytes(StandardCharsets.US_ASCII);
        assertEquals(42, Numbers.parseLong(b, 2, 2));
    }

    @Test
    void parseLongRejectsWhatString2llRejects() {
        for (String s : new String[] {"", "-", "-0", "+1", " 1", "1 ", "01", "00", "-01", "1a", "a", "1.0", "1e3",
                "9223372036854775808", "-9223372036854775809", "99999999999999999999", "123456789012345678901",
                "--1", "0x10", "\t1"}) {
            assertThrows(NumberFormatException.class, () -> parse(s), "'" + s + "'");
        }
    }

    @Test
    void writeLongAndDigits() {
        for (long v : new long[] {0, 1, 9, 10, 99, 100, -1, -10, 1023, 1024, Long.MAX_VALUE, Long.MIN_VALUE,
                999_999_999_999_999_999L, 1_000_000_000_000_000_000L, -999_999_999_999_999_999L}) {
            assertArrayEquals(Long.toString(v).getBytes(StandardCharsets.US_ASCII), Numbers.toBytes(v), "" + v);
            assertEquals(Long.toString(v).length(), Numbers.digits(v), "" + v);
        }
    }

    @Test
    void formatDoubleMatchesGlibcPercent17g() {
        // expected strings printed by glibc printf("%.17g") for the same doubles
        Object[][] cases = {
                {0.1, "0.10000000000000001"}, {1.0 / 3, "0.33333333333333331"}, {3.0, "3"}, {-2.5, "-2.5"},
                {1e21, "1e+21"}, {1e-5, "1.0000000000000001e-05"}, {0.0001, "0.0001"},
                {123456789012345678.0, "1.2345678901234568e+17"}, {1.5e300, "1.5000000000000001e+300"},
                {-1e-300, "-1e-300"}, {Double.MIN_VALUE, "4.9406564584124654e-324"},
                {Double.MAX_VALUE, "1.7976931348623157e+308"}, {100.0, "100"}, {1e16, "10000000000000000"},
                {1e17, "1e+17"}, {12345.678, "12345.678"}, {-0.0, "-0"}, {0.0, "0"}, {2.0 / 3, "0.66666666666666663"},
                {0.30000000000000004, "0.30000000000000004"}, {9.999999999999999e22, "9.9999999999999992e+22"},
                {Double.POSITIVE_INFINITY, "inf"}, {Double.NEGATIVE_INFINITY, "-inf"},
        };
        for (Object[] c : cases) {
            assertEquals(c[1], Numbers.formatDouble((Double) c[0]), "" + c[0]);
        }
    }

    @Test
    void parseDouble() {
        byte[] b = "1.5".getBytes(StandardCharsets.US_ASCII);
        assertEquals(1.5, Numbers.parseDouble(b, 0, b.length));
        for (String s : new String[] {"inf", "+inf", "-inf", "Infinity", "-INF"}) {
            byte[] x = s.getBytes(StandardCharsets.US_ASCII);
            assertEquals(Double.isInfinite(Numbers.parseDouble(x, 0, x.length)), true, s);
        }
        for (String s : new String[] {"", " 1", "1 ", "nan", "abc", "1.5x", "."}) {
            byte[] x = s.getBytes(StandardCharsets.US_ASCII);
            assertThrows(NumberFormatException.class, () -> Numbers.parseDouble(x, 0, x.length), "'" + s + "'");
        }
    }
}
