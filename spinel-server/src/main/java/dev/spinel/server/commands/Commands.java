package dev.spinel.server.commands;

import dev.spinel.server.commands.bitmap.BitmapCommands;
import dev.spinel.server.commands.connection.ClientCommands;
import dev.spinel.server.commands.connection.ConnectionCommands;
import dev.spinel.server.commands.connection.TrackingCommands;
import dev.spinel.server.commands.geo.GeoCommands;
import dev.spinel.server.commands.hash.HashCommands;
import dev.spinel.server.commands.hll.HyperLogLogCommands;
import dev.spinel.server.commands.key.DumpCommands;
import dev.spinel.server.commands.key.KeyCommands;
import dev.spinel.server.commands.key.MigrateCommand;
import dev.spinel.server.commands.list.ListCommands;
import dev.spinel.server.commands.pubsub.PubSubCommands;
import dev.spinel.server.commands.scripting.FunctionCommands;
import dev.spinel.server.commands.scripting.ScriptingCommands;
import dev.spinel.server.commands.server.AclCommands;
import dev.spinel.server.commands.server.ClusterCommands;
import dev.spinel.server.commands.server.ConfigCommands;
import dev.spinel.server.commands.server.IntrospectionCommands;
import dev.spinel.server.commands.server.LolwutCommand;
import dev.spinel.server.commands.server.ModuleCommands;
import dev.spinel.server.commands.server.PersistenceCommands;
import dev.spinel.server.commands.server.ServerCommands;
import dev.spinel.server.commands.server.ServerControl;
import dev.spinel.server.commands.set.SetCommands;
import dev.spinel.server.commands.stream.StreamCommands;
import dev.spinel.server.commands.string.StringCommands;
import dev.spinel.server.commands.transaction.TransactionCommands;
import dev.spinel.server.commands.zset.ZSetCommands;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.replication.ReplicationCommands;
import dev.spinel.store.types.SetLimits;

import java.util.List;

/**
 * Registers every command family. To find a command, look in the family file named after its type
 * or area: {@code SET} is in {@link StringCommands}, {@code EXPIRE} in {@link KeyCommands}, {@code CLIENT}
 * in {@link ClientCommands}, {@code CONFIG} in {@link ConfigCommands}.
 */
public final class Commands {
    private Commands() {
    }

    /**
     * Registers every family, each given only what it uses: most need nothing beyond the table (their
     * handlers reach the keyspace through the session), the collection families the size limits, the
     * admin ones a {@link ServerControl}. Then the configuration's {@code rename-command} lines.
     */
    public static void registerAll(CommandTable t, ServerControl server) {
        SetLimits limits = server.config().setLimits;
        ConnectionCommands.register(t);
        ClientCommands.register(t);
        TrackingCommands.register(t);
        ServerCommands.register(t, server);
        ConfigCommands.register(t);
        AclCommands.register(t, server.engine());
        StringCommands.register(t);
        BitmapCommands.register(t);
        HyperLogLogCommands.register(t);
        KeyCommands.register(t);
        ListCommands.register(t);
        HashCommands.register(t);
        SetCommands.register(t, limits);
        ZSetCommands.register(t, limits);
        StreamCommands.register(t);
        GeoCommands.register(t, limits);
        PubSubCommands.register(t);
        TransactionCommands.register(t);
        ScriptingCommands.register(t, server.scripting());
        FunctionCommands.register(t, server.scripting());
        IntrospectionCommands.register(t);
        PersistenceCommands.register(t, server.persistence());
        DumpCommands.register(t);
        MigrateCommand.register(t, server.migrateSockets());
        ReplicationCommands.register(t, server.replication());
        ModuleCommands.register(t);
        LolwutCommand.register(t);
        ClusterCommands.register(t, server.cluster());
        for (List<String> rename : server.config().commandRenames()) { // after every family: names any of them
            t.rename(rename.get(0), rename.get(1));
        }
    }
}
