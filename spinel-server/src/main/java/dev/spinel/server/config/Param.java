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
    private volatile boolean hidden;

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

    /**
     * A hidden parameter (Redis's HIDDEN_CONFIG, test knobs such as key-load-delay) is answered by CONFIG GET
     * only when asked by name, never for a pattern.
     */
    public final boolean hidden() {
        return hidden;
    }

    /** Marks this parameter hidden (see {@link #hidden()}); returns it. Call once, at registration. */
    @SuppressWarnings("unchecked")
    public final <P extends Param> P hide() {
        hidden = true;
        return (P) this;
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
