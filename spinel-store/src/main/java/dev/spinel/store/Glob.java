package dev.spinel.store;

/**
 * Glob-style matching with the rules of Redis's {@code stringmatchlen}: {@code *}, {@code ?},
 * {@code [abc]}, {@code [^a-z]}, and backslash escapes. Used by KEYS, SCAN MATCH, PSUBSCRIBE,
 * CONFIG GET and CLIENT KILL patterns.
 *
 * <p>Stateless and thread-safe.
 */
public final class Glob {
    private Glob() {
    }

    public static boolean matches(byte[] pattern, byte[] s, boolean nocase) {
        return matches(pattern, 0, pattern.length, s, 0, s.length, nocase);
    }

    public static boolean matches(String pattern, String s, boolean nocase) {
        return matches(pattern.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                s.getBytes(java.nio.charset.StandardCharsets.UTF_8), nocase);
    }

    /** True when pattern {@code p[po, po+pl)} matches {@code s[so, so+sl)}. */
    public static boolean matches(byte[] p, int po, int pl, byte[] s, int so, int sl, boolean nocase) {
        return match(p, po, po + pl, s, so, so + sl, nocase, 0);
    }

    private static boolean match(byte[] p, int pi, int pe, byte[] s, int si, int se, boolean nocase, int depth) {
        if (depth > 1000) {
            return false; // pathological patterns: Redis caps the nesting in the same way
        }
        while (pi < pe && si <= se) {
            byte pc = p[pi];
            switch (pc) {
                case '*' -> {
                    while (pi + 1 < pe && p[pi + 1] == '*') {
                        pi++;
                    }
                    if (pi + 1 == pe) {
                        return true;
                    }
                    for (int k = si; k <= se; k++) {
                        if (match(p, pi + 1, pe, s, k, se, nocase, depth + 1)) {
                            return true;
                        }
                    }
                    return false;
                }
                case '?' -> {
                    if (si >= se) {
                        return false;
                    }
                    si++;
                }
                case '[' -> {
                    if (si >= se) {
                        return false;
                    }
                    pi++;
                    boolean not = pi < pe && p[pi] == '^';
                    if (not) {
                        pi++;
                    }
                    boolean matched = false;
                    while (true) {
                        if (pi < pe && p[pi] == '\\' && pe - pi >= 2) {
                            pi++;
                            if (p[pi] == s[si]) {
                                matched = true;
                            }
                        } else if (pi < pe && p[pi] == ']') {
                            break;
                        } else if (pi >= pe) {
                            pi--;
                            break;
                        } else if (pe - pi >= 3 && p[pi + 1] == '-') {
                            int start = p[pi] & 0xff;
                            int end = p[pi + 2] & 0xff;
                            int c = s[si] & 0xff;
                            if (start > end) {
                                int t = start;
                                start = end;
                                end = t;
                            }
                            if (nocase) {
                                start = lower(start);
                                end = lower(end);
                                c = lower(c);
                            }
                            pi += 2;
                            if (c >= start && c <= end) {
                                matched = true;
                            }
                        } else {
                            if (nocase ? lower(p[pi] & 0xff) == lower(s[si] & 0xff) : p[pi] == s[si]) {
                                matched = true;
                            }
                        }
                        pi++;
                    }
                    if (not) {
                        matched = !matched;
                    }
                    if (!matched) {
                        return false;
                    }
                    si++;
                }
                default -> {
                    if (pc == '\\' && pe - pi >= 2) {
                        pi++;
                        pc = p[pi];
                    }
                    if (si >= se) {
                        return false;
                    }
                    if (nocase ? lower(pc & 0xff) != lower(s[si] & 0xff) : pc != s[si]) {
                        return false;
                    }
                    si++;
                }
            }
            pi++;
            if (si == se) {
                while (pi < pe && p[pi] == '*') {
                    pi++;
                }
                break;
            }
        }
        return pi == pe && si == se;
    }

    private static int lower(int c) {
        return c >= 'A' && c <= 'Z' ? c + 32 : c;
    }
}
