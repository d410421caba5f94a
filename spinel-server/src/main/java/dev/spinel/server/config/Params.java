package dev.spinel.server.config;

import dev.spinel.protocol.Repr;

import java.math.BigInteger;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.LongUnaryOperator;

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
        private LongUnaryOperator normalize = LongUnaryOperator.identity();

        public Int(String name, boolean mutable, long dflt, long min, long max, Consumer<Long> onChange, String... aliases) {
            super(name, mutable, aliases);
            this.dflt = dflt;
            this.value = dflt;
            this.min = min;
            this.max = max;
            this.onChange = onChange;
        }

        /** Adjusts accepted values as Redis stores them (e.g. {@code hz} clamped to 1..500); returns this. */
        public Int normalized(LongUnaryOperator f) {
            this.normalize = f;
            this.value = f.applyAsLong(dflt);
            return this;
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
            return Long.toString(normalize.applyAsLong(dflt));
        }

        @Override
        public void set(String v) throws ConfigException {
            long n = parseStrictLong(v);
            if (n < min || n > max) {
                throw new ConfigException("argument must be between " + min + " and " + max + " inclusive");
            }
            n = normalize.applyAsLong(n);
            value = n;
            if (onChange != null) {
                onChange.accept(n);
            }
            Consumer<Long> l = listener;
            if (l != null) {
                l.accept(n);
            }
        }

        private volatile Consumer<Long> listener;

        /** Runs {@code l} after every change (subsystems created after the config, e.g. replication). */
        public void listen(Consumer<Long> l) {
            this.listener = l;
        }
    }

    /**
     * A byte count with Redis's memory units (b, k, kb, m, mb, g, gb; case-insensitive), parsed as
     * Redis's {@code memtoull}. Most are "long long" configs checked against [min, max]; an unsigned
     * one ({@link #unsigned}, e.g. maxmemory) takes any 64-bit unsigned value and {@link #value()}
     * saturates at {@code Long.MAX_VALUE} for the code that compares against it.
     */
    public static final class Memory extends Param {
        private final long dflt;
        private final long min;
        private final long max;
        private final boolean unsigned;
        private volatile long bits;
        private final Consumer<Long> onChange;

        public Memory(String name, boolean mutable, long dflt, long max, Consumer<Long> onChange, String... aliases) {
            this(name, mutable, dflt, 0, max, false, onChange, aliases);
        }

        private Memory(String name, boolean mutable, long dflt, long min, long max, boolean unsigned,
                       Consumer<Long> onChange, String... aliases) {
            super(name, mutable, aliases);
            this.dflt = dflt;
            this.bits = dflt;
            this.min = min;
            this.max = max;
            this.unsigned = unsigned;
            this.onChange = onChange;
        }

        /** A "long long" memory config with a lower bound (proto-max-bulk-len, client-query-buffer-limit). */
        public static Memory bounded(String name, boolean mutable, long dflt, long min, long max) {
            return new Memory(name, mutable, dflt, min, max, false, null);
        }

        /** An "unsigned long long" memory config (maxmemory): every 64-bit value is accepted. */
        public static Memory unsigned(String name, boolean mutable, long dflt) {
            return new Memory(name, mutable, dflt, 0, -1, true, null);
        }

        public long value() {
            long b = bits;
            return unsigned && b < 0 ? Long.MAX_VALUE : b;
        }

        @Override
        public String get() {
            return unsigned ? Long.toUnsignedString(bits) : Long.toString(bits);
        }

        @Override
        public String defaultValue() {
            return Long.toString(dflt);
        }

        /** Redis writes memory values with the largest exact unit: 100mb, 1gb, 64kb. */
        @Override
        public String rewriteLine() {
            long v = bits;
            String text;
            if (v <= 0) {
                text = get();
            } else if (v % (1L << 30) == 0) {
                text = (v >> 30) + "gb";
            } else if (v % (1L << 20) == 0) {
                text = (v >> 20) + "mb";
            } else if (v % 1024 == 0) {
                text = (v >> 10) + "kb";
            } else {
                text = Long.toString(v);
            }
            return name() + " " + text;
        }

        @Override
        public void set(String v) throws ConfigException {
            long n = memtoull(v);
            if (!unsigned && (n < min || n > max)) {
                throw new ConfigException("argument must be between " + min + " and " + max + " inclusive");
            }
            bits = n;
            if (onChange != null) {
                onChange.accept(value());
            }
            Consumer<Long> l = listener;
            if (l != null) {
                l.accept(value());
            }
        }

        private volatile Consumer<Long> listener;

        /** Runs {@code l} after every change (subsystems created after the config, e.g. the keyspace). */
        public void listen(Consumer<Long> l) {
            this.listener = l;
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
        /** Set once at registration ({@link #words}), before the parameter is shared. */
        private boolean words;

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

        /** Marks a list of words (bind's addresses, replicaof's host and port), rewritten unquoted; returns it. */
        public Text words() {
            words = true;
            return this;
        }

        /** As Redis's rewriteConfigStringOption: always quoted by {@code sdscatrepr}, unless a list of words. */
        @Override
        public String rewriteLine() {
            return name() + " " + (words ? value : Repr.of(value));
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
     * Redis's {@code memtoull}: digits then an optional unit; the 64 result bits (an unsigned value,
     * saturated at 2^64-1 on overflow of the digits and wrapping on the unit multiplication, as in C).
     * An empty number counts as 0, as strtoull reads it.
     */
    public static long memtoull(String v) throws ConfigException {
        int u = 0;
        if (v.startsWith("-")) {
            throw new ConfigException("argument must be a memory value");
        }
        while (u < v.length() && v.charAt(u) >= '0' && v.charAt(u) <= '9') {
            u++;
        }
        long mul = switch (v.substring(u).toLowerCase(Locale.ROOT)) {
            case "", "b" -> 1;
            case "k" -> 1000;
            case "kb" -> 1024;
            case "m" -> 1000L * 1000;
            case "mb" -> 1024L * 1024;
            case "g" -> 1000L * 1000 * 1000;
            case "gb" -> 1024L * 1024 * 1024;
            default -> throw new ConfigException("argument must be a memory value");
        };
        if (u >= 128) {
            throw new ConfigException("argument must be a memory value");
        }
        BigInteger ullMax = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
        BigInteger n = u == 0 ? BigInteger.ZERO : new BigInteger(v.substring(0, u));
        if (n.compareTo(ullMax) > 0) {
            n = ullMax;
        }
        return n.longValue() * mul;
    }

    /** {@link #memtoull} as a non-negative long, or -1 when malformed (values past Long.MAX_VALUE saturate). */
    public static long parseMemory(String v) {
        try {
            long n = memtoull(v);
            return n < 0 ? Long.MAX_VALUE : n;
        } catch (ConfigException e) {
            return -1;
        }
    }

    /** Redis's string2ll: an optional '-', no leading zeros or '+', no spaces, within the long range. */
    public static long parseStrictLong(String v) throws ConfigException {
        ConfigException bad = new ConfigException("argument couldn't be parsed into an integer");
        int n = v.length();
        if (n == 0 || n > 20) {
            throw bad;
        }
        if (v.equals("0")) {
            return 0;
        }
        int i = v.charAt(0) == '-' ? 1 : 0;
        if (i == n || v.charAt(i) < '1' || v.charAt(i) > '9') {
            throw bad;
        }
        for (int k = i; k < n; k++) {
            if (v.charAt(k) < '0' || v.charAt(k) > '9') {
                throw bad;
            }
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw bad;
        }
    }
}
