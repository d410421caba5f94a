package dev.spinel.store;

import java.nio.charset.StandardCharsets;

/**
 * Glob-style matching with the answers of Redis 7.0's {@code stringmatchlen}: {@code *}, {@code ?},
 * {@code [abc]}, {@code [^a-z]}, backslash escapes, and its treatment of malformed patterns (an unclosed
 * {@code [} takes the rest of the pattern as its set, a trailing {@code \} is a literal backslash, a range
 * may be written backwards). Used by KEYS, SCAN MATCH, PSUBSCRIBE, PUBSUB CHANNELS, CONFIG GET, CLIENT KILL,
 * COMMAND LIST, FUNCTION LIST and ACL patterns, all of which any client may send, so the cost is bounded:
 * at most O(pattern length x subject length) steps, never exponential, no recursion and no allocation.
 * Like the redis-server 7.0.15 we compare with (which carries the fix for CVE-2024-31228), a pattern needing
 * more than {@link #MAX_STARS} stars before its end matches nothing.
 *
 * <p>Every pattern element other than {@code *} consumes exactly one byte, so a failed attempt only ever
 * needs to retry from the most recent {@code *}, letting it swallow one more byte: an earlier star taking
 * more could only move the rest of the pattern further right, where it has already failed.
 *
 * <p>Bytes compare as signed values, as C's {@code char} on the platforms Redis ships for, which matters for
 * ranges that mix ASCII and bytes above 0x7f; case folding (nocase) only folds A-Z, as the C locale does.
 *
 * <p>Stateless and thread-safe.
 */
public final class Glob {
    private static final int NO_MATCH = -1;

    /**
     * Redis gives up (no match) once its recursion passes this many stars that are not the pattern's last
     * element: a match needs every such star, so meeting one more than this decides the answer.
     */
    static final int MAX_STARS = 1000;

    private Glob() {
    }

    public static boolean matches(byte[] pattern, byte[] s, boolean nocase) {
        return matches(pattern, 0, pattern.length, s, 0, s.length, nocase);
    }

    public static boolean matches(String pattern, String s, boolean nocase) {
        return matches(pattern.getBytes(StandardCharsets.UTF_8), s.getBytes(StandardCharsets.UTF_8), nocase);
    }

    /** True when pattern {@code p[po, po+pl)} matches {@code s[so, so+sl)}. */
    public static boolean matches(byte[] p, int po, int pl, byte[] s, int so, int sl, boolean nocase) {
        int pe = po + pl;
        int se = so + sl;
        if (sl == 0) {
            // Redis's loop never starts on an empty subject: only the empty pattern matches it (even "*" does not)
            return pl == 0;
        }
        int pi = po;
        int si = so;
        int resumeP = -1; // pattern position just after the latest star
        int resumeS = -1; // subject position that star's continuation was last tried at
        int stars = 0;
        while (si < se) {
            if (pi < pe && p[pi] == '*') {
                while (pi < pe && p[pi] == '*') {
                    pi++;
                }
                if (pi == pe) {
                    return true;
                }
                if (++stars > MAX_STARS) {
                    return false; // backtracking never returns left of this star, so it is met once
                }
                resumeP = pi;
                resumeS = si;
                continue;
            }
            int next = pi < pe ? step(p, pi, pe, s[si], nocase) : NO_MATCH;
            if (next != NO_MATCH) {
                pi = next;
                si++;
            } else if (resumeP >= 0) {
                pi = resumeP;
                si = ++resumeS;
            } else {
                return false;
            }
        }
        while (pi < pe && p[pi] == '*') {
            pi++;
        }
        return pi == pe;
    }

    /**
     * Whether {@code pattern} matches every non-empty key that starts with {@code prefix} (for an ACL check of a
     * whole key range, e.g. a watch of a prefix). Conservative: true only for a pattern whose elements before its
     * first star each match the prefix's byte at their place ({@code ?}, a literal, an escaped literal) and that
     * ends with stars from there on ({@code *}, {@code prefix*}, {@code pre*}, {@code p?e*}); a set
     * ({@code [...]}) before the star, or anything after it, answers false even where it would cover.
     */
    public static boolean coversEveryExtension(byte[] pattern, byte[] prefix) {
        int pi = 0;
        int pe = pattern.length;
        for (byte b : prefix) {
            if (pi == pe) {
                return false;
            }
            byte pc = pattern[pi];
            if (pc == '*') {
                return onlyStars(pattern, pi);
            }
            if (pc == '[') {
                return false;
            }
            if (pc == '?') {
                pi++;
                continue;
            }
            if (pc == '\\' && pe - pi >= 2) {
                pi++;
                pc = pattern[pi];
            }
            if (pc != b) {
                return false;
            }
            pi++;
        }
        return pi < pe && onlyStars(pattern, pi);
    }

    private static boolean onlyStars(byte[] p, int from) {
        for (int i = from; i < p.length; i++) {
            if (p[i] != '*') {
                return false;
            }
        }
        return true;
    }

    /**
     * Matches the single-byte element at {@code p[pi]} (not a star) against {@code c}: the position after the
     * element when it matches, else {@link #NO_MATCH}. Where an element ends never depends on {@code c}.
     */
    private static int step(byte[] p, int pi, int pe, byte c, boolean nocase) {
        byte pc = p[pi];
        if (pc == '?') {
            return pi + 1;
        }
        if (pc == '[') {
            return setStep(p, pi + 1, pe, c, nocase);
        }
        if (pc == '\\' && pe - pi >= 2) {
            pi++;
            pc = p[pi];
        }
        return same(pc, c, nocase) ? pi + 1 : NO_MATCH;
    }

    /** A {@code [...]} set whose body starts at {@code pi}; an unclosed set runs to the end of the pattern. */
    private static int setStep(byte[] p, int pi, int pe, byte c, boolean nocase) {
        boolean not = pi < pe && p[pi] == '^';
        if (not) {
            pi++;
        }
        boolean matched = false;
        while (pi < pe && p[pi] != ']') {
            if (p[pi] == '\\' && pe - pi >= 2) {
                pi++;
                matched |= p[pi] == c; // an escaped byte compares exactly, even under nocase
            } else if (pe - pi >= 3 && p[pi + 1] == '-') {
                int start = p[pi];
                int end = p[pi + 2];
                int x = c;
                if (start > end) {
                    int t = start;
                    start = end;
                    end = t;
                }
                if (nocase) {
                    start = lower(start);
                    end = lower(end);
                    x = lower(x);
                }
                matched |= x >= start && x <= end;
                pi += 2;
            } else {
                matched |= same(p[pi], c, nocase);
            }
            pi++;
        }
        if (matched == not) {
            return NO_MATCH;
        }
        return pi < pe ? pi + 1 : pe;
    }

    private static boolean same(byte a, byte b, boolean nocase) {
        return nocase ? lower(a) == lower(b) : a == b;
    }

    private static int lower(int c) {
        return c >= 'A' && c <= 'Z' ? c + 32 : c;
    }
}
