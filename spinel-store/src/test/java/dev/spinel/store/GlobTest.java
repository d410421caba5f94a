package dev.spinel.store;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The glob matcher's worst cases answer quickly, and the edge answers of Redis 7.0.15's stringmatchlen (each
 * checked with KEYS on redis-server 7.0.15; GlobDiffTest in spinel-server compares random patterns).
 */
class GlobTest {
    private static final Duration BOUND = Duration.ofSeconds(5);

    private static boolean m(String pattern, String s) {
        return Glob.matches(bytes(pattern), bytes(s), false);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void starsThatCannotMatchTheEndGiveUpQuickly() {
        // issue #16: 31 "a*" then "b" against 69 'a's used to take hours (every split of the string tried)
        String subject = "a".repeat(69);
        String pattern = "a*".repeat(31) + "b";
        assertFalse(assertTimeoutPreemptively(BOUND, () -> m(pattern, subject)));
        assertTrue(assertTimeoutPreemptively(BOUND, () -> m(pattern, subject + "b")));
    }

    @Test
    void longSubjectsAndManyStarsStayPolynomial() {
        String subject = "a".repeat(20_000);
        assertFalse(assertTimeoutPreemptively(BOUND, () -> m("*?".repeat(400) + "b", subject)));
        assertFalse(assertTimeoutPreemptively(BOUND, () -> m("*a".repeat(900) + "*b", subject)));
        assertTrue(assertTimeoutPreemptively(BOUND, () -> m("*a".repeat(900) + "*", subject)));
        assertFalse(assertTimeoutPreemptively(BOUND, () -> m("*[a-b]*[^c]*\\a*?".repeat(100) + "c", subject)));
        assertTrue(assertTimeoutPreemptively(BOUND, () -> m("*".repeat(50_000) + "a", subject)));
    }

    @Test
    void theEmptySubjectOnlyMatchesTheEmptyPattern() {
        assertTrue(m("", ""));
        assertFalse(m("*", ""));
        assertFalse(m("**", ""));
        assertFalse(m("a", ""));
        assertFalse(m("", "a"));
    }

    @Test
    void moreThanAThousandStarsBeforeTheEndMatchNothing() {
        String subject = "a".repeat(1002);
        assertTrue(m("*a".repeat(1000) + "aa", subject));
        assertFalse(m("*a".repeat(1001) + "a", subject));
        assertTrue(m("a*".repeat(1001), subject)); // the last star is the pattern's end: not counted
        assertFalse(m("a*".repeat(1002), subject));
        assertTrue(m("a**".repeat(1000) + "aa", subject)); // consecutive stars count once
    }

    @Test
    void malformedPatternsMatchAsRedisReadsThem() {
        assertTrue(m("x\\", "x\\"));
        assertTrue(m("[^", "x"));
        assertTrue(m("[a-", "-"));
        assertTrue(m("[a-", "a"));
        assertFalse(m("[a-", "b"));
        assertFalse(m("[", "x"));
        assertFalse(m("[]a]", "a]")); // "[]" is an empty set: nothing matches it
        assertFalse(m("[]a]", "]"));
        assertTrue(m("[\\]]", "]"));
        assertTrue(m("[c-a]", "b"));
        assertTrue(m("\\*", "*"));
        assertFalse(m("\\*", "a"));
    }

    @Test
    void rangesCompareBytesAsSignedChars() {
        String range = "[a-\u00ff]"; // 0xff is -1: the range is -1..'a'
        assertTrue(m(range, "\u00ff"));
        assertTrue(m(range, "\u0001"));
        assertTrue(m(range, "A"));
        assertFalse(m(range, "b"));
        assertFalse(m(range, "\u0080"));
        assertTrue(m("[^a-\u00ff]", "\u0080"));
    }

    @Test
    void nocaseFoldsLettersButNotEscapesInsideSets() {
        assertTrue(Glob.matches(bytes("CONFIG*"), bytes("config-get"), true));
        assertTrue(Glob.matches(bytes("[A-C]x"), bytes("bX"), true));
        assertFalse(Glob.matches(bytes("[\\A]"), bytes("a"), true));
        assertTrue(Glob.matches(bytes("[A]"), bytes("a"), true));
    }

    /** A pattern said to cover a prefix matches every key starting with it; the ones it must not cover, it does not. */
    @Test
    void coveringAPrefixIsSoundAndSeesTheCommonPatterns() {
        String[][] covers = {{"*", ""}, {"*", "a"}, {"r*", "r"}, {"r*", "r1"}, {"r*", "r1:"}, {"ab**", "abc"},
            {"a?c*", "abc"}, {"a\\*x*", "a*x"}, {"user:*", "user:42"}};
        String[][] not = {{"r*", ""}, {"r*", "q"}, {"rr*", "r"}, {"r", "r"}, {"r*x", "r"}, {"[r]*", "r"},
            {"r?", "r"}, {"r*1", "r1"}, {"a\\*", "ab"}};
        String[] tails = {"", "x", "*", "1", "\\", "zz", "?", "\u00ff"};
        for (String[] c : covers) {
            assertTrue(Glob.coversEveryExtension(bytes(c[0]), bytes(c[1])), c[0] + " covers " + c[1]);
            for (String t : tails) {
                if (!(c[1] + t).isEmpty()) {
                    assertTrue(m(c[0], c[1] + t), c[0] + " must match " + c[1] + t);
                }
            }
        }
        for (String[] c : not) {
            assertFalse(Glob.coversEveryExtension(bytes(c[0]), bytes(c[1])), c[0] + " does not cover " + c[1]);
        }
    }
}
