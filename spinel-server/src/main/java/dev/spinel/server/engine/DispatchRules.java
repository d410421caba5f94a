package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.ports.ReplicationGate;
import dev.spinel.server.engine.ports.ScriptFlags;
import dev.spinel.server.engine.replica.DatasetLoading;

import java.nio.charset.StandardCharsets;

/**
 * Which commands dispatch treats specially, as Redis's processCommand does: what runs at once inside
 * MULTI, what a subscribed RESP2 client may send, what CLIENT PAUSE WRITE delays, which scripts MONITOR
 * shows before their own commands. Stateless and thread-safe.
 */
final class DispatchRules {
    private DispatchRules() {
    }

    /** Commands that act at once even inside MULTI (Redis: EXEC, DISCARD, MULTI, WATCH, QUIT, RESET). */
    static boolean runsInsideMulti(Command cmd) {
        return switch (cmd.name()) {
            case "exec", "discard", "multi", "watch", "quit", "reset" -> true;
            default -> false;
        };
    }

    /**
     * What CLIENT PAUSE WRITE delays: commands flagged write or may_replicate, and an EXEC whose
     * queue holds one (Redis 7.0).
     */
    static boolean writes(Command cmd, Session session) {
        if (cmd.exec && session.transaction() != null) {
            return session.transaction().writes();
        }
        return cmd.has(CommandFlag.WRITE) || cmd.has(CommandFlag.MAY_REPLICATE);
    }

    static boolean feedsMonitorsFirst(Command cmd) {
        return switch (cmd.name()) {
            case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro" -> true;
            default -> false;
        };
    }

    /** Redis 7.0 refuses any command but EXEC, DISCARD, QUIT and RESET inside MULTI when out of memory: queuing costs memory. */
    static boolean queuesInMulti(Session session, Command cmd) {
        return session.transaction() != null && switch (cmd.name()) {
            case "exec", "discard", "quit", "reset" -> false;
            default -> true;
        };
    }

    /** An EXEC is checked with the flags of the commands it queued (Redis's mstate.cmd_flags). */
    static boolean execHas(Session session, Command cmd, CommandFlag flag) {
        return cmd.exec && session.transaction() != null && session.transaction().anyHas(flag);
    }

    /**
     * Redis's is_denystale_command: refused on a stale replica (link down, replica-serve-stale-data no) unless it
     * has the {@code stale} flag; an EXEC when any command it queued lacks it. A script command takes its flags
     * from its script (looked up only while the replica is stale): one that declares flags runs only with
     * {@code allow-stale}, one that declares none (EVAL's compatibility mode) never, as Redis's
     * scriptFlagsToCmdFlags and scriptPrepareForRun decide (same MASTERDOWN text); an unknown script or function
     * goes on to its own error (NOSCRIPT...).
     */
    static boolean deniedWhenStale(ReplicationGate gate, ScriptFlags scriptFlags, Session session, Command cmd, Args args) {
        if (cmd.scriptKind != null && gate.stale()) {
            int declared = scriptFlags.declared(cmd.scriptKind, args);
            if (declared != ScriptFlags.UNDECLARED) {
                return (declared & ScriptFlags.ALLOW_STALE) == 0;
            }
            return scriptFlags.known(cmd.scriptKind, args);
        }
        return !cmd.has(CommandFlag.STALE) || (cmd.exec && session.transaction() != null && session.transaction().anyLacks(CommandFlag.STALE));
    }

    /**
     * Refusals checked after the replication gate, in Redis 7.0's processCommand order: a load's ({@link
     * #loadingRefusal}), then a MONITOR client's command that reads, writes or may replicate (a monitor is a
     * CLIENT_SLAVE in Redis: "Replica can't interact with the keyspace"; for EXEC, the commands it queued).
     */
    static String lateRefusal(DatasetLoading loading, Session session, Command cmd) {
        String refused = loadingRefusal(loading, session, cmd);
        if (refused == null && session.monitoring() && (cmd.has(CommandFlag.READONLY) || cmd.has(CommandFlag.WRITE)
                || cmd.has(CommandFlag.MAY_REPLICATE) || execHas(session, cmd, CommandFlag.READONLY)
                || execHas(session, cmd, CommandFlag.WRITE) || execHas(session, cmd, CommandFlag.MAY_REPLICATE))) {
            return "ERR Replica can't interact with the keyspace";
        }
        return refused;
    }

    /**
     * The refusal of a client's command during a load (start-up, DEBUG RELOAD, a replica's full resync), or null: a blocking load
     * refuses what lacks Redis's {@code loading} flag (for EXEC: any queued command that lacks it), an async one
     * what has {@code no_async_loading} (for EXEC: any queued command that has it), as Redis's processCommand.
     */
    static String loadingRefusal(DatasetLoading loading, Session session, Command cmd) {
        if (!loading.any() || session.isReplicationApplier() || session.replaying()) { // the load's own writers
            return null;
        }
        Transaction tx = cmd.exec ? session.transaction() : null;
        if (loading.blocking()) {
            return !cmd.has(CommandFlag.LOADING) || (tx != null && tx.anyLacks(CommandFlag.LOADING)) ? DatasetLoading.LOADING : null;
        }
        return cmd.has(CommandFlag.NO_ASYNC_LOADING) || (tx != null && tx.anyHas(CommandFlag.NO_ASYNC_LOADING))
                ? DatasetLoading.LOADING : null;
    }

    static boolean allowedWhileSubscribed(Command cmd) {
        return switch (cmd.name()) {
            case "subscribe", "unsubscribe", "psubscribe", "punsubscribe", "ssubscribe", "sunsubscribe",
                 "ping", "quit", "reset" -> true;
            default -> false;
        };
    }

    /**
     * A script or function that declares flags without {@code no-writes} counts as a write for the refusals
     * before it runs (NOREPLICAS, READONLY, MISCONF), as Redis's scriptFlagsToCmdFlags makes it one; a script
     * that declares nothing keeps its command's flags (its writes are refused one by one as it runs).
     */
    static boolean declaresWrites(ScriptFlags scriptFlags, Command cmd, Args args) {
        if (cmd.scriptKind == null) {
            return false;
        }
        int declared = scriptFlags.declared(cmd.scriptKind, args);
        return declared != ScriptFlags.UNDECLARED && (declared & ScriptFlags.NO_WRITES) == 0;
    }

    /**
     * What CLIENT PAUSE WRITE holds ({@link DispatchRules#writes}); a script command takes its flags from its
     * script, as Redis's evalGetCommandFlags: one that declares flags is held unless it declares
     * {@code no-writes}, one that declares none (no shebang, unknown script) has its command's flags (EVAL,
     * EVALSHA and FCALL may replicate; the _RO forms not).
     */
    static boolean pausedByWrite(ScriptFlags scriptFlags, Command cmd, Session session, Args args) {
        if (cmd.scriptKind != null) {
            int declared = scriptFlags.declared(cmd.scriptKind, args);
            return declared == ScriptFlags.UNDECLARED ? cmd.scriptMayReplicate : (declared & ScriptFlags.NO_WRITES) == 0;
        }
        return writes(cmd, session);
    }

    /** A script command queued in MULTI: what its declared flags make of the EXEC (Redis's mstate.cmd_flags). */
    static void queuedScript(ScriptFlags scriptFlags, Transaction tx, Command cmd, Args args) {
        int declared = scriptFlags.declared(cmd.scriptKind, args);
        boolean undeclared = declared == ScriptFlags.UNDECLARED;
        tx.queuedScript(!undeclared && (declared & ScriptFlags.NO_WRITES) == 0,
                !undeclared && (declared & (ScriptFlags.NO_WRITES | ScriptFlags.ALLOW_OOM)) == 0,
                undeclared && cmd.scriptMayReplicate);
    }

    /** Argument {@code i} in ASCII lower case (a subcommand's name). */
    static String lowerAscii(Args args, int i) {
        byte[] b = new byte[args.length(i)];
        for (int k = 0; k < b.length; k++) {
            byte c = args.byteAt(i, k);
            b[k] = (c >= 'A' && c <= 'Z') ? (byte) (c + 32) : c;
        }
        return new String(b, StandardCharsets.ISO_8859_1);
    }
}
