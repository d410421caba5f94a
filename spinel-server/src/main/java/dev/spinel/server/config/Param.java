package dev.spinel.server.config;

/**
 * One configuration parameter: its Redis name, whether CONFIG SET may change it at run time, and
 * how its value is parsed and printed. Subclasses hold the typed value.
 *
 * <p>Thread-safety: values are volatile; a set is atomic per parameter.
 */
public abstract class Param {
    private final String name;
    private final boolean mutable;
    private final String[] aliases;

    protected Param(String name, boolean mutable, String... aliases) {
        this.name = name;
        this.mutable = mutable;
        this.aliases = aliases;
    }

    public final String name() {
        return name;
    }

    public final boolean mutable() {
        return mutable;
    }

    public final String[] aliases() {
        return aliases;
    }

    /** The value as CONFIG GET prints it. */
    public abstract String get();

    /** Parses and applies a value; throws with Redis's reason when it is invalid. */
    public abstract void set(String value) throws ConfigException;

    /** The value as a line of a config file; most parameters print as {@code name value}. */
    public String rewriteLine() {
        return name + " " + Quoting.quoteIfNeeded(get());
    }

    /** The default value as CONFIG GET would print it, for CONFIG REWRITE to skip defaults. */
    public abstract String defaultValue();
}
