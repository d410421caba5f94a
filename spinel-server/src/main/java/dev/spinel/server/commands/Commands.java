package dev.spinel.server.commands;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.replication.ReplicationCommands;

/**
 * Registers every command family. To find a command, look in the family file named after its type
 * or area: {@code SET} is in {@link StringCommands}, {@code EXPIRE} in {@link KeyCommands}, {@code CLIENT}
 * in {@link ClientCommands}, {@code CONFIG} in {@link ConfigCommands}.
 */
public final class Commands {
    private Commands() {
    }

    public static void registerAll(CommandTable t, SpinelServer server) {
        ConnectionCommands.register(t, server);
        ClientCommands.register(t, server);
        TrackingCommands.register(t, server);
        ServerCommands.register(t, server);
        ConfigCommands.register(t, server);
        AclCommands.register(t, server);
        StringCommands.register(t, server);
        KeyCommands.register(t, server);
        ListCommands.register(t, server);
        HashCommands.register(t, server);
        SetCommands.register(t, server);
        ZSetCommands.register(t, server);
        StreamCommands.register(t, server);
        GeoCommands.register(t, server);
        PubSubCommands.register(t, server);
        TransactionCommands.register(t, server);
        ScriptingCommands.register(t);
        IntrospectionCommands.register(t, server);
        PersistenceCommands.register(t, server);
        DumpCommands.register(t, server);
        ReplicationCommands.register(t, server.replication());
        ModuleCommands.register(t);
        LolwutCommand.register(t);
        ClusterCommands.register(t);
    }
}
