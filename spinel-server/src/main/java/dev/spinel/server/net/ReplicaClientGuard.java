package dev.spinel.server.net;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.connection.ClientInfo;
import dev.spinel.server.engine.Command;
import dev.spinel.server.engine.CommandFlag;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.server.log.Log;

import java.util.Locale;

/**
 * The commands a replica of this server sends on its replication link (REPLCONF ACK, ...), as Redis 7.0 runs
 * them: the link carries the RDB and the stream, so a command that would reply (a PING, XINFO HELP) gets no reply
 * and the replica is disconnected ("Replica generated a reply to command ..."), and one that reads or writes the
 * keyspace is refused first ("Replica can't interact with the keyspace", which is itself such a reply).
 *
 * <p>Thread-safety: stateless; runs on the replica connection's event loop.
 */
final class ReplicaClientGuard {
    private static final String KEYSPACE = "Replica can't interact with the keyspace";

    private ReplicaClientGuard() {
    }

    /** Runs one command of an attached replica; false when the replica was disconnected for it. */
    static boolean execute(Engine engine, Session s, Args args) {
        Command c = engine.commands().lookup(args);
        if (c != null && c.hasSubcommands() && args.count() > 1) {
            Command sub = c.subcommand(args.string(1).toLowerCase(Locale.ROOT));
            c = sub != null ? sub : c;
        }
        if (c != null && (c.has(CommandFlag.READONLY) || c.has(CommandFlag.WRITE) || c.has(CommandFlag.MAY_REPLICATE))) {
            // both lines before the disconnect, in Redis's order: a peer that sees the link close may read the log
            // at once (replication.tcl does), and the CRITICAL line came after the close under load
            Log.warning(generatedReply(s, c.name()));
            Log.warning("== CRITICAL == This master is sending an error to its replica: '" + KEYSPACE
                    + "' after processing the command '" + c.name() + "'");
            s.kill();
            return false;
        }
        ReplyBuffer out = s.out();
        int before = out.size();
        engine.execute(s, args);
        if (out.size() == before) {
            return true;
        }
        out.truncate(before);
        disconnect(s, s.lastCommand());
        return false;
    }

    private static void disconnect(Session s, String command) {
        Log.warning(generatedReply(s, command));
        s.kill();
    }

    private static String generatedReply(Session s, String command) {
        return "Replica generated a reply to command '" + command + "', disconnecting it: " + ClientInfo.line(s);
    }
}
