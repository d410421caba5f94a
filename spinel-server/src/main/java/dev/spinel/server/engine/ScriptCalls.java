package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.server.acl.Acl;
import dev.spinel.server.acl.AclLog;
import dev.spinel.server.acl.UserRules;
import dev.spinel.server.engine.ports.InternalConnection;
import dev.spinel.server.engine.ports.ReplicationGate;

/**
 * The path of a script's {@code redis.call}: the script's own session (Redis's Lua client), the checks
 * Redis makes for commands called from scripts (in Redis's order: unknown, arity, noscript, the caller's
 * ACL permissions, read-only scripts, MISCONF, OOM before the first write, cluster mode's slots), and the
 * collection of the script's writes into one logged block.
 *
 * <p>Thread-safety: its state (whether the running script called a write) and its sessions are used only by
 * the thread running the script, which holds every stripe meanwhile.
 */
final class ScriptCalls {
    private final Engine engine;
    /**
     * Redis's SCRIPT_WRITE_DIRTY: the running script called a write command that passed the checks; from then on
     * the server's state (READONLY, MISCONF, NOREPLICAS) no longer refuses its writes, as Redis does not stop a
     * script half-way through its changes.
     */
    private boolean writeCalled;

    ScriptCalls(Engine engine) {
        this.engine = engine;
    }

    /**
     * A session for a script's {@code redis.call}s (Redis's Lua client): never registered as a client,
     * authenticated, used only by the thread that holds every stripe while the script runs.
     */
    Session newSession() {
        Session s = new Session(engine, 0, new InternalConnection("lua"));
        s.authenticated(true);
        s.script(true);
        return s;
    }

    /**
     * Before a script of {@code caller} runs: its session starts in the caller's database and collects
     * the script's writes as one transaction (Redis 7's effects replication: the writes executed, in
     * MULTI/EXEC when there are several). Blocking commands answer at once, as inside MULTI.
     */
    void begin(Session caller, Session script, byte[][] keys) {
        script.user(caller.user());
        script.scriptCaller(caller);
        script.declaredKeys(caller.tracking() != null && keys.length > 0 ? keys : null);
        script.select(caller.dbIndex());
        script.protocol(2);
        script.logPosition(0);
        script.propagateTargets(Propagator.TO_ALL); // until the script's redis.set_repl
        script.executingTransaction(true);
        writeCalled = false;
    }

    /** After a script: its writes are logged (into the caller's EXEC block when inside one). */
    void end(Session caller, Session script) {
        Propagator p = engine.hooks().propagator();
        try {
            if (p != null && !caller.executingTransaction()) {
                p.execDone(script);
            }
        } finally {
            script.executingTransaction(false);
            script.declaredKeys(null);
        }
        if (script.logPosition() > caller.logPosition()) {
            caller.logPosition(script.logPosition());
        }
    }

    /**
     * Runs one command of a script ({@code redis.call}) in the script's session with Redis's checks for
     * scripts, in Redis's order; its reply is appended to {@code script.out()}. Returns null when the
     * command ran (its reply may be an error reply), else the error that refused it (no reply written).
     *
     * @param readOnly EVAL_RO / EVALSHA_RO: write commands are refused
     * @param wrote    whether the script already wrote (Redis refuses denyoom commands under OOM only before)
     */
    String run(Session script, Args args, boolean readOnly, boolean wrote, boolean allowCrossSlot) {
        Command cmd = engine.commands().lookup(args);
        if (cmd != null && cmd.hasSubcommands() && args.count() > 1) {
            cmd = cmd.subcommand(DispatchRules.lowerAscii(args, 1));
        }
        String refusal = refusal(script, cmd, args, readOnly, wrote, allowCrossSlot);
        if (refusal != null) {
            // Counted as Redis's scriptCall does (afterErrorReply, rejected_calls), so not again in the script's reply.
            int sp = refusal.indexOf(' ');
            engine.stats().error(sp < 0 ? refusal : refusal.substring(0, sp));
            if (cmd != null) {
                cmd.rejectedCalls.increment();
            }
            return refusal;
        }
        engine.run(script, cmd, args);
        return null;
    }

    private String refusal(Session script, Command cmd, Args args, boolean readOnly, boolean wrote, boolean allowCrossSlot) {
        if (cmd == null) {
            return "ERR Unknown Redis command called from script";
        }
        if (!cmd.spec().arityAccepts(args.count())) {
            return "ERR Wrong number of args calling Redis command from script";
        }
        if (cmd.has(CommandFlag.NOSCRIPT) && !engine.debug().scriptsMayCallNoscript()) {
            return "ERR This Redis command is not allowed from script";
        }
        ReplicationGate gate = engine.hooks().replicationGate();
        if (!cmd.has(CommandFlag.STALE) && gate != null && gate.stale()) { // Redis's scriptVerifyAllowStale
            return "ERR Can not execute the command on a stale replica";
        }
        UserRules rules = script.user().rules();
        if (!rules.unrestricted()) { // the script runs with its caller's permissions
            long denied = Acl.check(rules, cmd.aclId(), cmd.spec(), cmd.noAuth(), args, 0);
            if (denied != 0) {
                engine.logDenied(script, cmd, args, denied, AclLog.LUA);
                return switch ((int) (denied >>> 32)) {
                    case Acl.DENIED_CMD -> "ERR The user executing the script can't run this command or subcommand";
                    case Acl.DENIED_KEY -> "ERR The user executing the script can't access at least one of the keys "
                            + "mentioned in the command arguments";
                    default -> "ERR The user executing the script can't publish to the channel mentioned in the command";
                };
            }
        }
        if (readOnly && cmd.has(CommandFlag.MAY_REPLICATE)) {
            // Redis counts may-replicate commands (PUBLISH, ...) as writes for a read-only script
            return "ERR Write commands are not allowed from read-only scripts.";
        }
        if (cmd.has(CommandFlag.WRITE)) {
            if (readOnly) {
                return "ERR Write commands are not allowed from read-only scripts.";
            }
        }
        if (cmd.has(CommandFlag.WRITE) && !writeCalled) {
            String refusal = engine.hooks().diskRefusal();
            if (refusal != null) {
                return refusal;
            }
            Session caller = script.scriptCaller();
            String refused = engine.hooks().replicationWriteRefusal(caller != null ? caller : script);
            if (refused != null) {
                return refused;
            }
        }
        if (!wrote && cmd.has(CommandFlag.DENYOOM) && engine.outOfMemory()) {
            return Evictor.OOM.getMessage();
        }
        if (cmd.has(CommandFlag.WRITE)) {
            writeCalled = true; // before the cluster checks, as in Redis's scriptCall
        }
        Engine.SlotRouter router = engine.hooks().slotRouter();
        Session caller = script.scriptCaller();
        if (router != null && caller != null && !caller.isReplicationApplier()) {
            return router.scriptRefusal(caller, script, cmd, args, allowCrossSlot);
        }
        return null;
    }
}
