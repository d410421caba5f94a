package dev.spinel.server.commands.server;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.CommandSpec;
import dev.spinel.protocol.KeyPositions;
import dev.spinel.protocol.KeyPositions.FlaggedKey;
import dev.spinel.server.errors.RedisError;

import java.util.List;

/**
 * COMMAND GETKEYS / GETKEYSANDFLAGS's checks around {@link KeyPositions#flagged}: Redis's errors for keyless
 * commands, wrong argument counts and unusable key lists. The key specs themselves are read only by
 * {@link KeyPositions}.
 *
 * <p>Stateless.
 */
final class GetKeys {
    private GetKeys() {
    }

    /** The keys of the command whose name is argument {@code from} of {@code a}; positions count from that name. */
    static List<FlaggedKey> of(CommandSpec spec, Args a, int from) {
        if (!KeyPositions.hasAclKeys(spec)) {
            throw new RedisError("ERR The command has no key arguments");
        }
        if (!spec.arityAccepts(a.count() - from)) {
            throw new RedisError("ERR Invalid number of arguments specified for command");
        }
        List<FlaggedKey> keys = KeyPositions.flagged(spec, a.tail(from));
        if (keys == null || keys.isEmpty()) {
            if (spec.has("no_mandatory_keys")) {
                return List.of();
            }
            throw new RedisError("ERR Invalid arguments specified for command");
        }
        return keys;
    }
}
