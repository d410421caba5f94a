package dev.spinel.server.commands.server;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.CommandMetadata;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.RedisError;

/**
 * CLUSTER (every subcommand), READONLY, READWRITE and ASKING as a Redis started without
 * {@code cluster-enabled} answers them: "cluster support disabled". Spinel has no cluster mode; what
 * matters is that cluster-aware clients probing a standalone server (CLUSTER SLOTS, CLUSTER SHARDS,
 * READONLY) get the answer that tells them so, while unknown subcommands and wrong arities get
 * Redis's usual errors from the command table.
 *
 * <p>Thread-safety: stateless.
 */
public final class ClusterCommands {
    private static final RedisError DISABLED = new RedisError("ERR This instance has cluster support disabled");

    private ClusterCommands() {
    }

    public static void register(CommandTable t) {
        t.register("cluster", ClusterCommands::disabled);
        for (String sub : CommandMetadata.get("cluster").subcommands().keySet()) {
            t.registerSub("cluster", sub, ClusterCommands::disabled);
        }
        t.register("readonly", ClusterCommands::disabled);
        t.register("readwrite", ClusterCommands::disabled);
        t.register("asking", ClusterCommands::disabled);
    }

    static void disabled(Session s, Args a) {
        throw DISABLED;
    }
}
