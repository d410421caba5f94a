package dev.spinel.protocol;

import java.util.Map;
import java.util.Set;

/**
 * What Redis 7.0 says about one command or subcommand: arity, flags, key positions, and the
 * complete {@code COMMAND INFO} and {@code COMMAND DOCS} trees, re-encoded per client protocol.
 *
 * @param name        lower-case name; subcommands as {@code container|sub}
 * @param arity       Redis arity: positive is exact, negative is a minimum
 * @param flags       lower-case flags such as {@code write}, {@code readonly}, {@code fast}
 * @param firstKey    position of the first key (0 when none)
 * @param lastKey     position of the last key (negative counts from the end)
 * @param step        distance between keys
 * @param info        the {@code COMMAND INFO} entry
 * @param subcommands subcommand specs by lower-case subcommand name (without the container)
 * @param keySpecs    the key specifications of {@code info}, decoded once ({@link KeySpecs})
 */
public record CommandSpec(String name, int arity, Set<String> flags, int firstKey, int lastKey, int step,
                          RespValue info, Map<String, CommandSpec> subcommands, KeySpecs keySpecs) {

    /** A spec whose key specifications are decoded from {@code info}. */
    public CommandSpec(String name, int arity, Set<String> flags, int firstKey, int lastKey, int step,
                       RespValue info, Map<String, CommandSpec> subcommands) {
        this(name, arity, flags, firstKey, lastKey, step, info, subcommands, KeySpecs.compile(name, info));
    }

    /**
     * The {@code COMMAND DOCS} value (without the name), or {@code null} when Redis has none; read on the first call
     * of any spec's, not held by the spec.
     */
    public RespValue docs() {
        return CommandDocs.of(name);
    }

    public boolean has(String flag) {
        return flags.contains(flag);
    }

    /** Whether {@code argc} arguments (command name included) satisfy the arity. */
    public boolean arityAccepts(int argc) {
        return arity >= 0 ? argc == arity : argc >= -arity;
    }
}
