package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.server.acl.Acl;
import dev.spinel.server.acl.AclLog;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.ports.BusyScript;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.UnknownCommandReply;
import dev.spinel.server.stats.ServerStats;

import java.nio.charset.StandardCharsets;

/**
 * How dispatch answers a request it refuses (unknown command or subcommand, arity, NOAUTH, NOPERM,
 * cluster redirections, disk, replication and memory refusals...): the error, errorstats, the
 * command's rejected_calls, the transaction flagged or EXEC aborted, CLIENT LIST's {@code cmd=}, the
 * ACL LOG entry; BUSY while a script runs; and CLIENT REPLY's treatment of every reply. Off the hot path except
 * {@link #applyReplyMode}, a static switch on one field.
 *
 * <p>Thread-safety: stateless apart from the engine's parts it writes to (each thread-safe); a session
 * is only ever used by the thread executing its command.
 */
final class DispatchRefusals {
    private final Engine engine;
    private final ServerStats stats;
    private final ServerConfig config;
    private final Acl acl;

    DispatchRefusals(Engine engine) {
        this.engine = engine;
        this.stats = engine.stats();
        this.config = engine.config();
        this.acl = engine.acl();
    }

    void rejectUnknown(Session session, Args args) {
        flagTransaction(session);
        UnknownCommandReply.write(session.out(), args);
        stats.error("ERR");
        session.beginCommand(System.currentTimeMillis(), "NULL"); // CLIENT LIST shows cmd=NULL, as Redis
    }

    /** An unknown subcommand of {@code container}. */
    void rejectUnknownSubcommand(Session session, Command container, Args args) {
        // Redis's lookupCommand finds no command here: no commandstats line counts the rejection.
        flagTransaction(session);
        String message = Errors.unknownSubcommand(args.cString(1), container.upperName()).getMessage();
        session.out().error(message);
        stats.error("ERR");
        session.beginCommand(System.currentTimeMillis(), "NULL"); // CLIENT LIST cmd=, as Redis
    }

    /** A cluster redirection: as a rejection, but an EXEC's transaction is discarded and answered plainly (Redis). */
    void redirect(Session session, Command cmd, String message) {
        if (cmd.name().equals("exec") && session.transaction() != null) {
            session.transaction(null);
            engine.watches().unwatchAll(session);
            session.out().error(message);
            stats.error(message.substring(0, message.indexOf(' ')));
            cmd.rejectedCalls.increment();
            session.beginCommand(System.currentTimeMillis(), cmd.name());
            return;
        }
        reject(session, cmd, message);
    }

    void reject(Session session, Command cmd, String message) {
        if (cmd.name().equals("exec")) {
            // Redis's execCommandAbort: a refused EXEC is answered EXECABORT and drops the watches even outside
            // MULTI; its reasons carry their code except the plain ERR of rejectCommandFormat's texts
            engine.transactions().abortExec(session, message.startsWith("ERR ") ? message.substring(4) : message);
            stats.error("EXECABORT");
            cmd.rejectedCalls.increment();
            session.beginCommand(System.currentTimeMillis(), cmd.name());
            return;
        }
        flagTransaction(session);
        session.out().error(message);
        int sp = message.indexOf(' ');
        stats.error(sp < 0 ? message : message.substring(0, sp));
        cmd.rejectedCalls.increment();
        session.beginCommand(System.currentTimeMillis(), cmd.name()); // a rejected command is still the last one
    }

    /** A command the user may not run (or not on these keys or channels): NOPERM, and an ACL LOG entry. */
    void rejectByAcl(Session session, Command cmd, Args args, long denied) {
        boolean inMulti = session.transaction() != null;
        String message = switch ((int) (denied >>> 32)) {
            case Acl.DENIED_CMD -> "NOPERM this user has no permissions to run the '" + cmd.name() + "' command";
            case Acl.DENIED_KEY -> "NOPERM this user has no permissions to access one of the keys used as arguments";
            default -> "NOPERM this user has no permissions to access one of the channels used as arguments";
        };
        reject(session, cmd, message); // a refused EXEC discards the transaction there
        logDenied(session, cmd, args, denied, inMulti ? AclLog.MULTI : AclLog.TOPLEVEL);
    }

    /** See {@link Engine#logDenied}. */
    void logDenied(Session session, Command cmd, Args args, long denied, String context) {
        int reason = (int) (denied >>> 32);
        String object = reason == Acl.DENIED_CMD ? cmd.name()
                : new String(args.copy((int) denied), StandardCharsets.ISO_8859_1);
        logAcl(session, reason == Acl.DENIED_CMD ? "command" : reason == Acl.DENIED_KEY ? "key" : "channel",
                context, object, session.user().name());
    }

    /** See {@link Engine#logAcl}. */
    void logAcl(Session session, String reason, String context, String object, String username) {
        Session real = session.scriptCaller() != null ? session.scriptCaller() : session;
        acl.log().add(reason, context, object, username, engine.hooks().clientInfo(real), config.acllogMaxLen.value());
    }

    private static void flagTransaction(Session session) {
        if (session.transaction() != null) {
            session.transaction().abort();
        }
    }

    /**
     * CLIENT REPLY: drops the reply of a command that ends with replies off or skipped (so CLIENT
     * REPLY ON and RESET are answered), but not the pushes it wrote ({@link Session#beginPush}), then moves
     * SKIP_NEXT to SKIP for the next command, as Redis's resetClient does.
     */
    static void applyReplyMode(Session session) {
        switch (session.replyMode()) {
            case ON -> { }
            case OFF -> session.out().truncate(session.replyStart()); // after any push the command wrote
            case SKIP -> {
                session.out().truncate(session.replyStart());
                session.replyMode(Session.ReplyMode.ON);
            }
            case SKIP_NEXT -> session.replyMode(Session.ReplyMode.SKIP);
        }
    }

    /**
     * While a script runs: before {@code busy-reply-threshold} the request waits for the script's end or
     * the threshold (as in Redis, where nothing else is served then); past the threshold it gets BUSY unless
     * its command is allowed while busy (SCRIPT KILL, SHUTDOWN NOSAVE...). So a loop never waits for a
     * script longer than the threshold, and never on the script's stripes. Returns true when answered.
     */
    boolean waitForScript(Session session, Command cmd) {
        BusyScript script = engine.script();
        long threshold = config.busyReplyThreshold.value();
        script.awaitEndOrBusy(threshold);
        if (script.busy(threshold) && !cmd.has(CommandFlag.ALLOW_BUSY)) {
            reject(session, cmd, script.functionRunning()
                    ? "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
                    : "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
            applyReplyMode(session);
            return true;
        }
        return false; // the script ended, or SCRIPT KILL, SHUTDOWN NOSAVE, MULTI, WATCH...: none needs its stripes
    }
}
