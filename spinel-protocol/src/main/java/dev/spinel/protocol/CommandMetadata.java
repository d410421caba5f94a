package dev.spinel.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Redis 7.0's command metadata, kept as data: the RESP3 replies of {@code COMMAND} and
 * {@code COMMAND DOCS} captured from a real redis-server by {@code tools/dump-redis-commands.py}.
 * Spinel lists only the commands it implements, but describes each exactly as Redis does. The docs are read only
 * when first asked for ({@link CommandDocs}).
 *
 * <p>Immutable after class initialisation; thread-safe.
 */
public final class CommandMetadata {
    /**
     * Commands with Redis 7.0's CMD_MAY_REPLICATE flag (its command table), which COMMAND INFO does not show and
     * the recorded metadata therefore lacks: CLIENT PAUSE WRITE holds them and read-only scripts may not call
     * them. EVAL, EVALSHA and FCALL carry it in Redis too, but there it gives way to the flags a script
     * declares, which these sets do not know; they are left out.
     */
    private static final Set<String> MAY_REPLICATE = Set.of("publish", "spublish", "pfcount");

    private static final Map<String, CommandSpec> ALL = load();

    private CommandMetadata() {
    }

    /** The spec of a top-level command by name (any case), or {@code null}. */
    public static CommandSpec get(String name) {
        return ALL.get(name.toLowerCase(Locale.ROOT));
    }

    public static Map<String, CommandSpec> all() {
        return ALL;
    }

    private static Map<String, CommandSpec> load() {
        RespValue info = read("command-info.resp3");
        Map<String, CommandSpec> out = new HashMap<>();
        for (RespValue entry : ((RespValue.Array) info).items()) {
            CommandSpec spec = spec(entry);
            out.put(spec.name(), spec);
        }
        return Collections.unmodifiableMap(out);
    }

    private static CommandSpec spec(RespValue entry) {
        List<RespValue> f = ((RespValue.Array) entry).items();
        String name = RespValue.text(f.get(0));
        Set<String> flags = new LinkedHashSet<>();
        for (RespValue flag : items(f.get(2))) {
            flags.add(RespValue.text(flag));
        }
        if (MAY_REPLICATE.contains(name)) {
            flags.add("may_replicate");
        }
        Map<String, CommandSpec> subs = new HashMap<>();
        if (f.size() > 9) {
            for (RespValue sub : items(f.get(9))) {
                CommandSpec s = spec(sub);
                subs.put(s.name().substring(s.name().indexOf('|') + 1), s);
            }
        }
        return new CommandSpec(name, (int) ((RespValue.Integer) f.get(1)).value(), Collections.unmodifiableSet(flags),
                (int) ((RespValue.Integer) f.get(3)).value(), (int) ((RespValue.Integer) f.get(4)).value(),
                (int) ((RespValue.Integer) f.get(5)).value(), entry, Collections.unmodifiableMap(subs));
    }

    private static List<RespValue> items(RespValue v) {
        return switch (v) {
            case RespValue.Array a -> a.items();
            case RespValue.SetValue s -> s.items();
            default -> List.of();
        };
    }

    static RespValue read(String resource) {
        try (InputStream in = CommandMetadata.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource);
            }
            return new RespReader(in.readAllBytes()).read();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
