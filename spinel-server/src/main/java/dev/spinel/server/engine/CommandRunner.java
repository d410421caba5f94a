package dev.spinel.server.engine;

import static dev.spinel.server.engine.DispatchRefusals.applyReplyMode;

import dev.spinel.protocol.Args;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.clients.Monitors;
import dev.spinel.server.engine.clock.CommandChain;
import dev.spinel.server.engine.clock.CommandClock;
import dev.spinel.server.engine.tracking.Tracking;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.log.Log;
import dev.spinel.server.stats.ServerStats;
import dev.spinel.store.Keyspace;
import dev.spinel.store.StripeLocks;

/**
 * Runs a command that passed {@link Engine}'s dispatch checks: MONITOR's feed, the stripes a logged write
 * holds while it runs and is logged, the handler, what its writes signal and propagate, its timing and
 * statistics; and a script command lent to the script thread ({@link ScriptThread}).
 *
 * <p>Thread-safety: one per engine, used by every event loop and the script thread at once; its only state
 * of its own is a per-thread {@link StripeLocks}, the rest are the engine's thread-safe parts. A session is
 * only ever used by the thread executing its command.
 */
final class CommandRunner {
    private final ServerConfig config;
    private final Keyspace keyspace;
    private final Monitors monitors;
    private final EngineHooks hooks;
    private final CommandEffects effects;
    private final ServerStats stats;
    private final Blocking blocking;
    private final Tracking tracking;
    /** Stripes held around a write command while it runs and is logged (one per event-loop thread). */
    private final ThreadLocal<StripeLocks> logLocks = ThreadLocal.withInitial(StripeLocks::new);

    CommandRunner(Engine engine) {
        this.config = engine.config();
        this.keyspace = engine.keyspace();
        this.monitors = engine.monitors();
        this.hooks = engine.hooks();
        this.effects = engine.effects();
        this.stats = engine.stats();
        this.blocking = engine.blocking();
        this.tracking = engine.tracking();
    }

    /**
     * A script command handed over by {@link ScriptThread}: runs it on the script thread as dispatch would
     * have on the loop (statistics, reply mode, blocked clients served), the session lent to this thread.
     */
    void runLent(Session session, Command cmd, Args args) {
        session.executingOn(Thread.currentThread());
        try {
            session.replyStart(session.out().size());
            run(session, cmd, args);
            applyReplyMode(session);
            if (blocking.blockedClients() > 0) {
                blocking.serveReady();
            }
            // The BCAST keys the script changed were gathered by this thread: sent before its reply is given
            // back, as the loop sends its own before the replies of a read batch. (So a pipeline's writes before
            // a script and the script's come in two invalidation messages, where Redis's one turn sends one.)
            tracking.flushBroadcasts();
        } finally {
            session.executingOn(null);
        }
    }

    /** Runs one command that passed dispatch's checks (EXEC runs its queued commands through here). */
    void run(Session session, Command cmd, Args args) {
        if (!monitors.isEmpty() && DispatchRules.feedsMonitorsFirst(cmd)) {
            // Redis's evalCommand/fcallCommand feed MONITOR themselves, first, so that the script's own
            // commands ("lua") come after it; the commands are flagged skip_monitor for the usual feed.
            monitors.feed(session, args);
        }
        if (session.executingTransaction() || !cmd.logged()) {
            runCommand(session, cmd, args, null); // EXEC and gRPC units hold every stripe they use and log at their end
            return;
        }
        // A write holds its stripes across execution and logging, so that the log's order of writes to a key is
        // the order they were applied in, and reads whether it is logged only once they are held: a log that starts
        // (AOF switched on, the first replica's backlog) captures its copy and installs its hook under every
        // stripe, so each write is in the copy or in the log after it. Read before the stripes, a write that saw
        // "no log" could land just after the copy and be in neither (aof-multi-part.tcl lost 1 in ~160,000).
        StripeLocks locks = logLocks.get();
        boolean all = lockForLog(session, cmd, args, locks);
        try {
            runCommand(session, cmd, args, hooks.propagator());
        } finally {
            if (all) {
                for (int i = keyspace.databases() - 1; i >= 0; i--) {
                    keyspace.db(i).unlockAll();
                }
            } else {
                locks.unlock();
            }
        }
    }

    /** Locks the stripes a write may touch; returns true when it took every stripe (keyless writes). */
    private boolean lockForLog(Session s, Command cmd, Args args, StripeLocks locks) {
        if (cmd.locksEveryDatabase || !CommandEffects.addKeyStripes(s, cmd, args, locks)) {
            for (int i = 0; i < keyspace.databases(); i++) {
                keyspace.db(i).lockAll();
            }
            return true;
        }
        locks.lock();
        return false;
    }

    /**
     * A bug, not the client's mistake: the client gets an error in place of any partial reply and the log says where,
     * instead of Netty closing the connection without a word (Redis would stop with a bug report). A method of its
     * own, so that the hot runCommand stays small.
     */
    private void internalError(Session session, Command cmd, RuntimeException e, int replyBefore) {
        if (session.out().size() >= replyBefore) {
            session.out().truncate(replyBefore);
        }
        StackTraceElement[] at = e.getStackTrace();
        Log.warning("Internal error in " + cmd.name() + ": " + e + (at.length > 0 ? " at " + at[0] : ""));
        session.out().error("ERR internal error in '" + cmd.name() + "' (see the server log)");
        stats.error("ERR");
        cmd.failedCalls.increment();
    }

    private void runCommand(Session session, Command cmd, Args args, Propagator p) {
        CommandChain chain = CommandChain.current();
        // A fast command in a read batch may be timed with the run of such commands around it (RunTiming): it starts
        // at the run's start and, when it did what its flag promises, reads no clock at its end either
        boolean mayJoin = RunTiming.mayJoin(chain, cmd, config);
        long start = mayJoin ? chain.runStart() : chain != null ? chain.start() : System.nanoTime();
        // No second clock read (CommandClock). Inside EXEC the last command stays EXEC, as Redis's lastcmd does.
        CommandClock clock = chain != null ? chain.clock() : CommandClock.offLoop(); // a loop's clock stays anchored across its clients
        session.beginCommand(clock.millis(start), session.executingTransaction() ? session.lastCommand() : cmd.name());
        session.writes().start(cmd, args);
        long dirtyBefore = session.dirtyCount();
        int replyBefore = session.out().size();
        try {
            cmd.handler().execute(session, args);
            if (session.dirtyCount() != dirtyBefore) {
                effects.written(session, cmd, args);
                Propagator inTx = p != null ? p : session.executingTransaction() ? hooks.propagator() : null;
                if (inTx != null) {
                    inTx.propagate(session, cmd, args);
                }
            }
            effects.trackReads(session, cmd, args);
        } catch (RedisError e) {
            session.out().error(e.getMessage());
            if (!e.statsCounted()) {
                stats.error(e.code());
            }
            cmd.failedCalls.increment();
        } catch (RuntimeException e) {
            internalError(session, cmd, e, replyBefore);
        }
        long micros;
        if (mayJoin && RunTiming.stays(args, session.out().size() - replyBefore, session.dirtyCount() != dirtyBefore)) {
            chain.join(cmd, config.latencyTracking.value());
            micros = 0; // its share comes with the run's; no threshold it could pass is set (RunTiming)
        } else {
            if (mayJoin) {
                chain.absorbRun(); // this command's time runs from the run's start
            }
            long end = System.nanoTime();
            if (chain != null) {
                chain.end(end);
            }
            micros = (end - start) / 1000;
            cmd.took(micros, config.latencyTracking.value());
        }
        cmd.calls.increment();
        stats.commandsProcessed.increment();
        effects.afterCommand(session, cmd, args, micros);
    }

    /**
     * Which commands are timed with a run ({@link CommandChain#join}) instead of reading the clock at their end: only
     * those no slowlog or latency-monitor threshold could single out. Redis's fast commands (O(1) or O(log N)) take
     * microseconds; while both thresholds are 1 ms or more (Redis's defaults: the slowlog at 10 ms, the monitor off) one
     * cannot pass them unless it does work its flag does not promise, which is checked after it ran: it wrote (a lazily
     * expired key freed, members added), or its request or reply was large (a GET of a large value). Such a command reads
     * the clock at its end, and its time is counted from the run's start: it takes in the microseconds of the fast
     * commands before it in its batch, which are told 0 (each well under the microsecond its time is counted in).
     *
     * <p>Thread-safety: stateless; reads the configuration's volatile values.
     */
    static final class RunTiming {
        /** Below this, no fast command can be one the slowlog or the latency monitor must single out. */
        private static final long MIN_THRESHOLD_MICROS = 1000;
        /** Request and reply sizes up to which a fast command that wrote nothing is one of microseconds. */
        private static final int SMALL_BYTES = 8 * 1024;

        private RunTiming() {
        }

        /** Before the command: whether it may start at its run's start (no clock read), from its flags and the thresholds. */
        static boolean mayJoin(CommandChain chain, Command cmd, ServerConfig config) {
            if (chain == null || !chain.canJoin() || !cmd.has(CommandFlag.FAST)) {
                return false;
            }
            long slower = config.slowlogLogSlowerThan.value();
            return (slower < 0 || slower >= MIN_THRESHOLD_MICROS) && config.latencyMonitorThreshold.value() == 0;
        }

        /** After it ran: whether it stays in the run (no clock read at its end either). */
        static boolean stays(Args args, int replyGrowth, boolean wrote) {
            if (wrote || replyGrowth < 0 || replyGrowth > SMALL_BYTES) {
                return false;
            }
            int last = args.count() - 1;
            return last < 0 || args.offset(last) + args.length(last) - args.offset(0) <= SMALL_BYTES;
        }
    }
}
