package dev.spinel.server.config;

import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The typed parameter kinds Redis's config system has, with its parsing rules and error texts.
 * Each may carry an {@code onChange} hook that applies a new value to the running server.
 */
public final class Params {
    private Params() {
    }

    /** yes/no. */
    public static final class Bool extends Param {
        private final boolean dflt;
        private volatile boolean value;
        private final Consumer<Boolean> onChange;

        public Bool(String name, boolean mutable, boolean dflt, Consumer<Boolean> onChange, String... aliases) {
            super(name, mutable, aliases);
            this.dflt = dflt;
            this.value = dflt;
            this.onChange = onChange;
        }

        public boolean value() {
            return value;
        }

        @Override
        public String get() {
            return value ? "yes" : "no";
        }

        @Override
        public String defaultValue() {
            return dflt ? "yes" : "no";
        }

        @Override
        public void set(String v) throws ConfigException {
            boolean b = switch (v.toLowerCase(Locale.ROOT)) {
                case "yes" -> true;
                case "no" -> false;
                default -> throw new ConfigException("argument must be 'yes' or 'no'");
            };
            value = b;
            if (onChange != null) {
                onChange.accept(b);
            }
            Consumer<Boolean> l = listener;
            if (l != null) {
                l.accept(b);
            }
        }

        private volatile Consumer<Boolean> listener;

        /** Runs {@code l} after every change (subsystems created after the config, e.g. persistence). */
        public void listen(Consumer<Boolean> l) {
            this.listener = l;
        }
    }

    /** A bounded integer (long range). */
    public static final class Int extends Param {
        private final long dflt;
        private final long min;
        private final long max;
        private volatile long value;
        private final Consumer<Long> onChange;

        public Int(String name, boolean mutable, long dflt, long min, long max, Consumer<Long> onChange, String... aliases) {
            super(name, mutable, aliases);
            this.dflt = dflt;
            this.value = dflt;
            this.min = min;
            this.max = max;
            this.onChange = onChange;
        }

        public long value() {
            return value;
        }

        @Override
        public String get() {
            return Long.toString(value);
        }

        @Override
        public String defaultValue() {
            return Long.toString(dflt);
        }

        @Override
        public void set(String v) throws ConfigException {
            long n;
            try {
                n = Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw new ConfigException("argument couldn't be parsed into an integer");
            }
            if (n < min || n > max) {
                throw new ConfigException("argument must be between " + min + " and " + max + " inclusive");
            }
            value = n;
            if (onChange != null) {
                onChange.accept(n);
            }
        }
    }

    /** A byte count with Redis's memory units (k, kb, m, mb, g, gb; case-insensitive). */
    public static final class Memory extends Param {
        private final long dflt;
        private final long max;
        private volatile long value;
        private final Consumer<Long> onChange;

        public Memory(String name, boolean mutable, long dflt, long max, Consumer<Long> onChange, String... aliases) {
            super(name, mutable, aliases);
            this.dflt = dflt;
            this.value = dflt;
            this.max = max;
            this.onChange = onChange;
        }

        public long value() {
            return value;
        }

        @Override
        public String get() {
            return Long.toString(value);
        }

        @Override
        public String defaultValue() {
            return Long.toString(dflt);
        }

        @Override
        public void set(String v) throws ConfigException {
            long n = parseMemory(v);
            if (n < 0) {
                throw new ConfigException("argument must be a memory value");
            }
            if (n > max) {
                throw new ConfigException("argument must be between 0 and " + max + " inclusive");
            }
            value = n;
            if (onChange != null) {
                onChange.accept(n);
            }
        }
    }

    /** One of a fixed set of words. */
    public static final class Enum extends Param {
        private final List<String> choices;
        private final String dflt;
        private volatile String value;
        private final Consumer<String> onChange;
        private volatile Consumer<String> listener;

        public Enum(String name, boolean mutable, String dflt, List<String> choices, Consumer<String> onChange, String... aliases) {
            super(name, mutable, aliases);
            this.choices = choices;
            this.dflt = dflt;
            this.value = dflt;
            this.onChange = onChange;
        }

        public String value() {
            return value;
        }

        @Override
        public String get() {
            return value;
        }

        @Override
        public String defaultValue() {
            return dflt;
        }

        @Override
        public void set(String v) throws ConfigException {
            String lower = v.toLowerCase(Locale.ROOT);
            if (!choices.contains(lower)) {
                throw new ConfigException("argument(s) must be one of the following: " + String.join(", ", choices));
            }
            value = lower;
            if (onChange != null) {
                onChange.accept(lower);
            }
            Consumer<String> l = listener;
            if (l != null) {
                l.accept(lower);
            }
        }

        /** Sets a hook called after every change, for parts of the server created after the configuration. */
        public void listen(Consumer<String> l) {
            this.listener = l;
        }
    }

    /** Free text, optionally checked by a validator that throws with the reason. */
    public static final class Text extends Param {
        /** Checks a candidate value; throws with Redis's reason. */
        @FunctionalInterface
        public interface Validator {
            void check(String v) throws ConfigException;
        }

        private final String dflt;
        private volatile String value;
        private final Validator validator;
        private final Consumer<String> onChange;

        public Text(String name, boolean mutable, String dflt, Validator validator, Consumer<String> onChange, String... aliases) {
            super(name, mutable, aliases);
            this.dflt = dflt;
            this.value = dflt;
            this.validator = validator;
            this.onChange = onChange;
        }

        public String value() {
            return value;
        }

        @Override
        public String get() {
            return value;
        }

        @Override
        public String defaultValue() {
            return dflt;
        }

        @Override
        public void set(String v) throws ConfigException {
            if (validator != null) {
                validator.check(v);
            }
            value = v;
            if (onChange != null) {
                onChange.accept(v);
            }
        }
    }

    /**
     * Parses {@code 100}, {@code 1k}, {@code 1kb}, {@code 5mb}, {@code 1g}, ... as Redis's
     * {@code memtoull} does; returns -1 when malformed.
     */
    public static long parseMemory(String v) {
        String s = v.toLowerCase(Locale.ROOT);
        long mul = 1;
        String digits = s;
        String[][] units = {{"kb", "1024"}, {"mb", "1048576"}, {"gb", "1073741824"},
                {"k", "1000"}, {"m", "1000000"}, {"g", "1000000000"}, {"b", "1"}};
        for (String[] u : units) {
            if (s.endsWith(u[0])) {
                mul = Long.parseLong(u[1]);
                digits = s.substring(0, s.length() - u[0].length());
                break;
            }
        }
        if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit)) {
            return -1;
        }
        try {
            return Math.multiplyExact(Long.parseLong(digits), mul);
        } catch (ArithmeticException | NumberFormatException e) {
            return -1;
        }
    }
}
