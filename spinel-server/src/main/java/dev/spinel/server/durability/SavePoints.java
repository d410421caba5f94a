package dev.spinel.server.durability;

import dev.spinel.server.config.ConfigException;

/**
 * The {@code save <seconds> <changes> ...} schedule: snapshot when at least {@code changes} writes
 * happened and at least {@code seconds} passed since the last successful save. Empty means never.
 *
 * <p>Immutable and thread-safe.
 */
public record SavePoints(long[] seconds, long[] changes) {
    public static final SavePoints NONE = new SavePoints(new long[0], new long[0]);

    /** Parses the config value; throws with Redis's message when malformed. */
    public static SavePoints parse(String value) throws ConfigException {
        String v = value.strip();
        if (v.isEmpty() || v.equals("\"\"")) {
            return NONE;
        }
        String[] words = v.split("\\s+");
        if (words.length % 2 != 0) {
            throw new ConfigException("Invalid save parameters");
        }
        long[] s = new long[words.length / 2];
        long[] c = new long[words.length / 2];
        for (int i = 0; i < s.length; i++) {
            try {
                s[i] = Long.parseLong(words[2 * i]);
                c[i] = Long.parseLong(words[2 * i + 1]);
            } catch (NumberFormatException e) {
                throw new ConfigException("Invalid save parameters");
            }
            if (s[i] < 0 || c[i] < 0) {
                throw new ConfigException("Invalid save parameters");
            }
        }
        return new SavePoints(s, c);
    }

    public static void validate(String value) throws ConfigException {
        parse(value);
    }

    public static SavePoints parseOrNone(String value) {
        try {
            return parse(value);
        } catch (ConfigException e) {
            return NONE;
        }
    }

    public boolean isEmpty() {
        return seconds.length == 0;
    }

    /** The first point reached, as {@code {seconds, changes}}, or {@code null}. */
    public long[] due(long changesSinceSave, long secondsSinceSave) {
        for (int i = 0; i < seconds.length; i++) {
            if (changesSinceSave >= changes[i] && secondsSinceSave >= seconds[i]) {
                return new long[] {seconds[i], changes[i]};
            }
        }
        return null;
    }
}
