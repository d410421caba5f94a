package dev.spinel.server.engine;

import static dev.spinel.server.engine.DispatchRefusals.applyReplyMode;

import dev.spinel.protocol.Args;
import dev.spinel.server.acl.Acl;
import dev.spinel.server.acl.UserRules;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.clients.ClientPause;
import dev.spinel.server.engine.clients.ClientRegistry;
import dev.spinel.server.engine.clients.MemoryAccounting;
import dev.spinel.server.engine.clients.Monitors;
import dev.spinel.server.engine.clients.SlowLog;
import dev.spinel.server.engine.debug.DebugSwitches;
import dev.spinel.server.engine.ports.BusyScript;
import dev.spinel.server.engine.ports.ClientConnection;
import dev.spinel.server.engine.ports.ReplicationGate;
import dev.spinel.server.engine.ports.ScriptFlags;
import dev.spinel.server.engine.pubsub.PubSub;
import dev.spinel.server.engine.tracking.Tracking;
import dev.spinel.server.engine.replica.ReplicaRole;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.stats.LatencyMonitor;
import dev.spinel.server.stats.ServerStats;
import dev.spinel.store.Keyspace;

import java.util.function.Consumer;

/**
 * The command engine: dispatches a parsed request to its command, with Redis's checks in Redis's
 * order (unknown command, arity, subcommand, authentication), statistics, and reply modes. Knows
 * nothing of sockets; the RESP front end and embedded callers drive it through {@link Session}s.
 * Its parts: {@link DispatchRefusals} answers what dispatch refuses, {@link CommandRunner} runs what it
 * lets through, {@link CommandEffects} signals what a command did, {@link KeyspaceEvents} what changed outside commands, {@link EngineHooks} holds what
 * other layers install.
 *
 * <p>Thread-safety: one engine serves every event loop; a session is only ever used by its own loop.
 * Atomicity of each command comes from the stripe locks the command takes.
 */
public final class Engine {
    private final ServerConfig config;
    private final Keyspace keyspace;
    private final CommandTable commands;
    private final ClientRegistry<Session> clients = new ClientRegistry<>();
    private final ServerStats stats = new ServerStats();
    private final PubSub<Session> pubSub;
    private final OutputLimits outputLimits;
    private final Watches watches;
    private final Transactions transactions;
    private final SlowLog slowLog = new SlowLog();
    private final LatencyMonitor latency = new LatencyMonitor();
    private final Monitors monitors = new Monitors();
    /** Keys one command may drop from a tracking table over its limit (Redis's first effort); the cron does more. */
    private static final int TRACKING_EVICTIONS_PER_COMMAND = 100;
    private final Tracking tracking = new Tracking(clients);
    private final Notifications notifications;
    private final Evictor evictor;
    private final MemoryAccounting memory;
    private final ClientPause pause;
    private final Blocking blocking = new Blocking();
    /** The running script, as far as the busy check needs it. */
    private final BusyScript script;
    /** What scripts declare, read by dispatch before they run (CLIENT PAUSE WRITE, EXEC's flags). */
    private final ScriptFlags scriptFlags;
    private final Acl acl = new Acl();
    private final ScriptCalls scriptCalls = new ScriptCalls(this);
    private final ScriptThread scriptThread = new ScriptThread(this);
    private final DispatchRefusals refusals;
    private final KeyspaceEvents keyEvents;
    private final CommandEffects effects;
    private final EngineHooks hooks = new EngineHooks();
    private final ReplicaRole replicaRole;
    private final DebugSwitches debug = new DebugSwitches();
    private final CommandRunner runner;

    /** An engine without scripting (embedded tests): no script is ever busy. */
    public Engine(ServerConfig config, Keyspace keyspace, CommandTable commands) {
        this(config, keyspace, commands, BusyScript.NONE);
    }

    public Engine(ServerConfig config, Keyspace keyspace, CommandTable commands, BusyScript script) {
        this.config = config;
        this.script = script;
        this.scriptFlags = script instanceof ScriptFlags f ? f : ScriptFlags.NONE;
        this.keyspace = keyspace;
        this.replicaRole = new ReplicaRole(keyspace);
        this.watches = new Watches(keyspace);
        this.commands = commands;
        this.outputLimits = new OutputLimits(config);
        this.pubSub = new PubSub<>(outputLimits);
        this.notifications = new Notifications(pubSub);
        this.memory = new MemoryAccounting(keyspace, clients);
        this.pause = new ClientPause(keyspace);
        this.evictor = new Evictor(config, keyspace, this, memory);
        this.transactions = new Transactions(this, keyspace, watches);
        // Redis's updateMaxmemory: a lower limit evicts at once, not only before the next write.
        config.onApply(config.maxmemory, evictor::makeRoom);
        config.notifyKeyspaceEvents.onChange(notifications::flags);
        acl.requirepass(config.requirepass.value()); // requirepass is the default user's password, as in Redis
        config.onApply(config.requirepass, () -> acl.requirepass(config.requirepass.value()));
        acl.pubsubDefault(config.aclPubsubDefault.value().equals("allchannels"));
        config.onApply(config.aclPubsubDefault, () -> acl.pubsubDefault(config.aclPubsubDefault.value().equals("allchannels")));
        this.refusals = new DispatchRefusals(this);
        this.keyEvents = new KeyspaceEvents(this);
        this.effects = new CommandEffects(this);
        this.runner = new CommandRunner(this);
        keyspace.listener(keyEvents);
    }

    /** The running script as the engine sees it (the BUSY checks). */
    public BusyScript script() {
        return script;
    }

    /**
     * Cluster mode's check of a request against the slots this node serves (Redis's getNodeByQuery):
     * null to run it here, else the redirection or error to answer. Installed once before the server
     * listens (the event loops start after it, so they see it); null outside cluster mode, where dispatch
     * pays one field read. {@code scriptWrites}: a script whose declared flags lack no-writes (a write).
     */
    public interface SlotRouter {
        String refusal(Session session, Command cmd, Args args, boolean scriptWrites);

        /**
         * A command a script of {@code caller} calls (Redis's scriptVerifyClusterState): null when it may run
         * here, else the error refusing it (a key another node serves, the cluster down, or, unless
         * {@code allowCrossSlot}, a key of another slot than the script's keys so far). {@code script} is the
         * script's own session. Called on the thread running the script.
         */
        String scriptRefusal(Session caller, Session script, Command cmd, Args args, boolean allowCrossSlot);
    }

    /**
     * A key was written outside the command path that normally reports it (Redis's
     * {@code signalModifiedKey}; e.g. a blocked client served by another's push, DEBUG POPULATE):
     * watches, client caches and other front ends' views are invalidated. The caller holds the key's
     * stripe.
     */
    public void keyModified(int db, byte[] key) {
        keyEvents.modified(db, key);
    }

    /** What the log, replication, cluster mode, gRPC and persistence install into the engine. */
    public EngineHooks hooks() {
        return hooks;
    }

    /** What a command's writes and completion signal (watches, waiters, caches, slow log, MONITOR). */
    CommandEffects effects() {
        return effects;
    }

    /** Expiry, eviction and other changes outside a command's own reporting. */
    KeyspaceEvents keyEvents() {
        return keyEvents;
    }

    /**
     * A client for a front end other than RESP (gRPC): its writes run through this engine's command
     * path (refusals, notifications, invalidations, the log); see {@link EmbeddedClient}.
     * {@code name} is the client's address as MONITOR shows it.
     */
    public EmbeddedClient embeddedClient(String name) {
        return new EmbeddedClient(this, name);
    }

    public Watches watches() {
        return watches;
    }

    /** MULTI, EXEC, DISCARD, WATCH, UNWATCH. */
    public Transactions transactions() {
        return transactions;
    }

    public SlowLog slowLog() {
        return slowLog;
    }

    public LatencyMonitor latency() {
        return latency;
    }

    public Monitors monitors() {
        return monitors;
    }

    public Tracking tracking() {
        return tracking;
    }

    public Notifications notifications() {
        return notifications;
    }

    /** used_memory and its parts (INFO memory, MEMORY STATS, the maxmemory checks). */
    public MemoryAccounting memory() {
        return memory;
    }

    /** maxmemory enforcement and INFO's evicted_keys. */
    public Evictor evictor() {
        return evictor;
    }

    /** client-output-buffer-limit, as the connections check their replies against it. */
    public OutputLimits outputLimits() {
        return outputLimits;
    }

    public PubSub<Session> pubSub() {
        return pubSub;
    }

    public ServerConfig config() {
        return config;
    }

    public Keyspace keyspace() {
        return keyspace;
    }

    public CommandTable commands() {
        return commands;
    }

    public ClientRegistry<Session> clients() {
        return clients;
    }

    /** DEBUG's switches of the cron and of scripts (Redis's own suites use them). */
    public DebugSwitches debug() {
        return debug;
    }

    /** Whether this server replicates a master, and what that changes (expiry, loading). */
    public ReplicaRole replicaRole() {
        return replicaRole;
    }

    /** Runs commands that passed dispatch's checks, on a loop or the script thread. */
    CommandRunner runner() {
        return runner;
    }

    public ServerStats stats() {
        return stats;
    }

    public ClientPause pause() {
        return pause;
    }

    /** Blocked clients and the keys they wait on (BLPOP and friends). */
    public Blocking blocking() {
        return blocking;
    }

    /** Whether new connections start unauthenticated: the default user has a password, or is off. */
    public boolean authRequired() {
        return acl.authRequired();
    }

    /** Users and permissions (ACL). */
    public Acl acl() {
        return acl;
    }

    /** Creates and registers the session of a new connection. */
    public Session open(ClientConnection connection) {
        Session s = new Session(this, clients.nextId(), connection);
        clients.add(s);
        stats.connectionsReceived.increment();
        return s;
    }

    public void close(Session s) {
        pubSub.unsubscribeAll(s);
        watches.unwatchAll(s);
        monitors.remove(s);
        tracking.closed(s);
        blocking.disconnected(s);
        clients.remove(s);
        Consumer<Session> l = hooks.closeListener();
        if (l != null) {
            l.accept(s);
        }
    }

    /** Executes one request; its reply (or error) is appended to {@code session.out()}. */
    public void execute(Session session, Args args) {
        if (args.count() == 0) {
            return;
        }
        Thread previous = session.executingOn();
        session.executingOn(Thread.currentThread());
        Command lend;
        try {
            lend = dispatch(session, args);
            Outbox.runAfterReply(session.outbox);
        } finally {
            session.executingOn(previous);
        }
        if (lend != null) {
            // After executingOn is reset here: from now on the script thread alone uses the session.
            scriptThread.submit(session, lend, args);
        }
    }

    /** Checks and runs one request; returns the command to run on the script thread, or null when done. */
    private Command dispatch(Session session, Args args) {
        session.replyStart(session.out().size());
        Command cmd = commands.lookup(args);
        if (cmd == null && (cmd = commands.replayed(session, args)) == null) {
            refusals.rejectUnknown(session, args);
            applyReplyMode(session);
            return null;
        }
        if (!cmd.spec().arityAccepts(args.count())) {
            refusals.reject(session, cmd, Errors.wrongArgs(cmd.name()).getMessage());
            applyReplyMode(session);
            return null;
        }
        // A container called alone (COMMAND) runs its own handler; arity already refused the others.
        if (cmd.hasSubcommands() && args.count() > 1) {
            Command sub = cmd.subcommand(DispatchRules.lowerAscii(args, 1));
            if (sub == null) {
                refusals.rejectUnknownSubcommand(session, cmd, args);
                applyReplyMode(session);
                return null;
            }
            if (!sub.spec().arityAccepts(args.count())) {
                refusals.reject(session, sub, Errors.wrongArgs(sub.name()).getMessage());
                applyReplyMode(session);
                return null;
            }
            cmd = sub;
        }
        if (!session.authenticated() && !cmd.has(CommandFlag.NO_AUTH)) {
            refusals.reject(session, cmd, Errors.NOAUTH.getMessage());
            applyReplyMode(session);
            return null;
        }
        UserRules rules = session.user().rules();
        if (!rules.unrestricted()) { // the default user with +@all ~* &* stops here: one field read
            long denied = Acl.check(rules, cmd.aclId(), cmd.spec(), cmd.noAuth(), args, 0);
            if (denied != 0) {
                refusals.rejectByAcl(session, cmd, args, denied);
                applyReplyMode(session);
                return null;
            }
        }
        SlotRouter router = hooks.slotRouter();
        if (router != null && !session.isReplicationApplier() && !session.replaying()) { // Redis's mustObeyClient
            String redirect = router.refusal(session, cmd, args, DispatchRules.declaresWrites(scriptFlags, cmd, args));
            if (redirect != null) {
                refusals.redirect(session, cmd, redirect);
                applyReplyMode(session);
                return null;
            }
        }
        if (session.transaction() != null && cmd.has(CommandFlag.NO_MULTI)) {
            // SAVE and SHUTDOWN (Redis 7.0's CMD_NO_MULTI) are refused, and the transaction fails at EXEC.
            refusals.reject(session, cmd, "ERR Command not allowed inside a transaction");
            applyReplyMode(session);
            return null;
        }
        String refusal = hooks.diskRefusal();
        if (refusal != null && !session.replaying() && !session.isReplicationApplier() && (cmd.has(CommandFlag.WRITE) || cmd.name().equals("ping")
                || DispatchRules.execHas(session, cmd, CommandFlag.WRITE) || DispatchRules.declaresWrites(scriptFlags, cmd, args))) {
            refusals.reject(session, cmd, refusal);
            applyReplyMode(session);
            return null;
        }
        ReplicationGate gate = hooks.replicationGate(); // one volatile read; null on a plain master
        if (gate != null) {
            String refused = gate.refusal(session.isReplicationApplier() || session.replaying(), cmd.has(CommandFlag.WRITE)
                    || DispatchRules.execHas(session, cmd, CommandFlag.WRITE) || DispatchRules.declaresWrites(scriptFlags, cmd, args),
                    DispatchRules.deniedWhenStale(gate, scriptFlags, session, cmd, args));
            if (refused != null) {
                refusals.reject(session, cmd, refused);
                applyReplyMode(session);
                return null;
            }
        }
        if (session.hasSubscriptions() && session.protocol() == 2 && !DispatchRules.allowedWhileSubscribed(cmd)) {
            refusals.reject(session, cmd, "ERR Can't execute '" + cmd.name()
                    + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context");
            applyReplyMode(session);
            return null;
        }
        String loadingRefused = DispatchRules.lateRefusal(replicaRole.loading(), session, cmd); // two volatile reads
        if (loadingRefused != null) {
            refusals.reject(session, cmd, loadingRefused);
            applyReplyMode(session);
            return null;
        }
        if (pause.active() && pause.mustWait(DispatchRules.pausedByWrite(scriptFlags, cmd, session, args), System.currentTimeMillis())) {
            // CLIENT PAUSE delays, never rejects: the request runs again when the pause ends.
            pause.postpone(session, args, System.currentTimeMillis());
            return null;
        }
        if (config.maxmemory.value() > 0) { // without maxmemory (the default) nothing here runs per command
            // As Redis's performEvictions, every command evicts first while maxmemory is set, a read too, and
            // the invalidations of the keys evicted come before its reply; one that may grow the dataset is
            // refused while still over the limit (at queue time in MULTI).
            boolean room = evictor.makeRoom();
            session.drainDeliveries();
            if (!room && (cmd.has(CommandFlag.DENYOOM) || DispatchRules.execHas(session, cmd, CommandFlag.DENYOOM)
                    || DispatchRules.queuesInMulti(session, cmd))) {
                refusals.reject(session, cmd, Evictor.OOM.getMessage());
                applyReplyMode(session);
                return null;
            }
        }
        if (tracking.hasClients() && tracking.limitKeys(config.trackingTableMaxKeys.value(), TRACKING_EVICTIONS_PER_COMMAND)) {
            // Redis's processCommand: the table is cut to its limit first; this client's invalidations precede
            // this command's reply (QUEUED included)
            session.drainDeliveries();
        }
        if (script.running() && refusals.waitForScript(session, cmd)) { // one volatile read when no script runs
            return null;
        }
        if (cmd.catchUp != CatchUpBarrier.NONE && session.transaction() == null && CatchUpBarrier.holdBack(session, cmd, args, pubSub)) {
            return null; // runs again once the other loops have read what they had received
        }
        if (session.transaction() != null && !DispatchRules.runsInsideMulti(cmd)) {
            session.beginCommand(System.currentTimeMillis(), cmd.name()); // a queued command is CLIENT LIST's cmd=, as in Redis
            session.transaction().queue(cmd, args);
            if (cmd.scriptKind != null) {
                DispatchRules.queuedScript(scriptFlags, session.transaction(), cmd, args);
            }
            session.out().simple("QUEUED");
            applyReplyMode(session);
            return null;
        }
        if ((cmd.runsScript() || (session.transaction() != null && session.transaction().holdsScript() && cmd.name().equals("exec")))
                && session.connection().lendable()) {
            // run on the script thread, so that this loop goes on serving its other clients (BUSY, SCRIPT KILL),
            // an EXEC that runs a script too
            return cmd;
        }
        runner.run(session, cmd, args);
        applyReplyMode(session);
        if (blocking.blockedClients() > 0) {
            // Redis's handleClientsBlockedOnKeys: keys this command made ready serve their waiters now.
            blocking.serveReady();
        }
        return null;
    }

    /**
     * A session for a script's {@code redis.call}s (Redis's Lua client); see {@link ScriptCalls}.
     */
    public Session newScriptSession() {
        return scriptCalls.newSession();
    }

    /** Before a script of {@code caller}, which declared {@code keys}, runs; see {@link ScriptCalls#begin}. */
    public void beginScript(Session caller, Session script, byte[][] keys) {
        scriptCalls.begin(caller, script, keys);
    }

    /** After a script: its writes are logged; see {@link ScriptCalls#end}. */
    public void endScript(Session caller, Session script) {
        scriptCalls.end(caller, script);
    }

    /** True when maxmemory is set and cannot be met now (Redis refuses denyoom commands then). */
    public boolean outOfMemory() {
        return config.maxmemory.value() > 0 && !evictor.makeRoom();
    }

    /**
     * Runs one command of a script ({@code redis.call}) with Redis's checks for scripts; null when it ran,
     * else the error that refused it. See {@link ScriptCalls#run}.
     */
    public String runFromScript(Session script, Args args, boolean readOnly, boolean wrote, boolean allowCrossSlot) {
        return scriptCalls.run(script, args, readOnly, wrote, allowCrossSlot);
    }

    /** Runs one command that passed dispatch's checks (EXEC runs its queued commands through here); see {@link CommandRunner}. */
    void run(Session session, Command cmd, Args args) {
        runner.run(session, cmd, args);
    }

    /**
     * Adds an ACL LOG entry for a denied command, key or channel ({@code denied} as {@link Acl#check}
     * returns it) of {@code session} (a script's session logs its caller's client).
     */
    public void logDenied(Session session, Command cmd, Args args, long denied, String context) {
        refusals.logDenied(session, cmd, args, denied, context);
    }

    /** Adds an ACL LOG entry ({@code reason}: command, key, channel or auth). */
    public void logAcl(Session session, String reason, String context, String object, String username) {
        refusals.logAcl(session, reason, context, object, username);
    }
}
