package dev.spinel.server.config;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Every parameter of a {@link ServerConfig} by name and alias, in the order registered: the base of the classes
 * that declare parameters by role ({@link ClusterParams}, {@link ServerConfig}), whose field initializers register
 * them here.
 *
 * <p>Thread-safety: parameters are registered during construction only; the maps are read-only after it.
 */
public abstract sealed class ConfigRegistry permits ClusterParams {
    private final Map<String, Param> byName = new LinkedHashMap<>();
    private final Map<String, Param> byAlias = new LinkedHashMap<>();

    ConfigRegistry() {
    }

    /** Registers a parameter (used by subsystems that own their parameters). */
    public <P extends Param> P add(P p) {
        byName.put(p.name(), p);
        for (String a : p.aliases()) {
            byAlias.put(a, p);
        }
        return p;
    }

    /** The parameter with this name or alias (any case), or {@code null}. */
    public Param param(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        Param p = byName.get(n);
        return p != null ? p : byAlias.get(n);
    }

    public Collection<Param> params() {
        return byName.values();
    }
}
