package dev.spinel.protocol;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code COMMAND DOCS} values of Redis 7.0 by command name ({@code container|sub} for a subcommand), read from
 * {@code command-docs.resp3} the first time one is asked for. The tree is ~13,000 objects (~0.7 MB of heap) that a
 * server which never answers COMMAND DOCS need not hold, so it is kept apart from {@link CommandMetadata}, which every
 * server loads.
 *
 * <p>Thread-safety: the map is built during this class's initialisation (the holder idiom: the JVM runs it once,
 * whichever thread asks first) and never changed after; safe from any thread.
 */
final class CommandDocs {
    private static final Map<String, RespValue> BY_NAME = load();

    private CommandDocs() {
    }

    /** The docs of a command or subcommand by lower-case name, or {@code null} when Redis has none for it. */
    static RespValue of(String name) {
        return BY_NAME.get(name);
    }

    private static Map<String, RespValue> load() {
        List<RespValue> top = ((RespValue.MapValue) CommandMetadata.read("command-docs.resp3")).entries();
        Map<String, RespValue> out = new HashMap<>();
        for (int i = 0; i < top.size(); i += 2) {
            RespValue docs = top.get(i + 1);
            out.put(RespValue.text(top.get(i)), docs);
            if (docs instanceof RespValue.MapValue m) {
                List<RespValue> e = m.entries();
                for (int k = 0; k < e.size(); k += 2) {
                    if ("subcommands".equals(RespValue.text(e.get(k)))) {
                        List<RespValue> s = ((RespValue.MapValue) e.get(k + 1)).entries();
                        for (int j = 0; j < s.size(); j += 2) {
                            out.put(RespValue.text(s.get(j)), s.get(j + 1));
                        }
                    }
                }
            }
        }
        return out;
    }
}
