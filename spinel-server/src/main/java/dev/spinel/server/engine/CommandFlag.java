package dev.spinel.server.engine;

import java.util.Locale;
import java.util.Set;

/**
 * The Redis command flags the server consults while running commands (dispatch's refusals, EXEC's checks,
 * scripts, the slowlog, MONITOR, cluster routing), as bits of a mask each {@link Command} computes once at
 * registration: a check per call is a mask test, not a string lookup in the spec's flag set.
 * {@code COMMAND INFO} still reports the spec's own flags, which include many more.
 *
 * <p>Thread-safety: immutable constants.
 */
public enum CommandFlag {
    WRITE, DENYOOM, STALE, NO_MULTI, ALLOW_BUSY, NO_AUTH, MAY_REPLICATE, FAST, ADMIN, SKIP_SLOWLOG,
    SKIP_MONITOR, NOSCRIPT, MOVABLEKEYS, ASKING, READONLY, LOADING, NO_ASYNC_LOADING;

    /** This flag's bit in {@link #mask}. */
    final long bit = 1L << ordinal();
    /** The flag as Redis spells it in COMMAND INFO. */
    private final String word = name().toLowerCase(Locale.ROOT);

    /** The mask of the flags of this enum among {@code flags} (Redis's lower-case words; others are ignored). */
    static long mask(Set<String> flags) {
        long m = 0;
        for (CommandFlag f : values()) {
            if (flags.contains(f.word)) {
                m |= f.bit;
            }
        }
        return m;
    }

    /** The flag as Redis spells it. */
    public String word() {
        return word;
    }
}
