package dev.spinel.server.replication;

import dev.spinel.protocol.Args;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.Command;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.log.Log;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A command of the master's stream that got an error on this replica (Redis's afterErrorReply for a master
 * client): the replica's data may have diverged from the master's. Logged as Redis logs it, counted in
 * unexpected_error_replies, and with {@code propagation-error-behavior panic} (or panic-on-replicas) on a
 * read-only replica the server stops.
 *
 * <p>Thread-safety: stateless; called on the link's thread.
 */
final class ErrorsToMaster {
    private ErrorsToMaster() {
    }

    /** {@code reply[0..size)} is the error reply the applier got for {@code args}. */
    static void report(Engine engine, ServerConfig config, Args args, byte[] reply, int size) {
        int end = 1;
        while (end < size && reply[end] != '\r') {
            end++;
        }
        String error = new String(reply, 1, Math.min(end - 1, 4096), StandardCharsets.UTF_8);
        Command c = engine.commands().lookup(args);
        c = c != null ? c : engine.commands().lookupOriginal(args); // as the applier found it (Engine.dispatch)
        if (c != null && c.hasSubcommands() && args.count() > 1) {
            Command sub = c.subcommand(args.string(1).toLowerCase(Locale.ROOT));
            c = sub != null ? sub : c;
        }
        String cmd = c == null ? "<unknown>" : c.name(); // a subcommand's is Redis's fullname, container|sub
        Log.warning("== CRITICAL == This replica is sending an error to its master: '" + error
                + "' after processing the command '" + cmd + "'");
        engine.stats().unexpectedErrorReplies.increment();
        String behaviour = config.param("propagation-error-behavior").get();
        if (config.replicaReadOnly.value() && !behaviour.equals("ignore")) {
            Log.warning("Guru Meditation: This replica panicked sending an error to its master after processing the command '"
                    + cmd + "' (propagation-error-behavior " + behaviour + ")");
            Runtime.getRuntime().halt(1); // Redis's serverPanic: the process ends here, as a crash
        }
    }
}
