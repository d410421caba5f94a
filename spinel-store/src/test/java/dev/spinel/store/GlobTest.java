package dev.spinel.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GlobTest {
    private static boolean m(String pattern, String s) {
        return Glob.matches(pattern.getBytes(StandardCharsets.ISO_8859_1), s.getBytes(StandardCharsets.ISO_8859_1), false);
    }

    @Test
    void starsQuestionMarksClassesAndEscapes() {
        assertTrue(m("*", ""));
        assertTrue(m("a*", "a"));
        assertTrue(m("*b*", "abc"));
        assertTrue(m("a*c", "abbbc"));
        assertFalse(m("a*c", "abbb"));
        assertTrue(m("h?llo", "hello"));
        assertTrue(m("h[a-e]llo", "hello"));
        assertFalse(m("h[^e]llo", "hello"));
        assertTrue(m("h\\*llo", "h*llo"));
        assertTrue(m("*a*a*b", "xaxaxab"));
        assertFalse(m("*a*a*b", "xaxaxa"));
    }

    /** Redis's keyspace unit: "Regression for pattern matching long nested loops" (exponential without the skip). */
    @Test
    @Timeout(5)
    void manyStarsThatCannotMatchFailFast() {
        String key = "a".repeat(40);
        assertFalse(m("a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", key));
        assertTrue(m("a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*", key));
        assertFalse(m("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a", key));
    }
}
