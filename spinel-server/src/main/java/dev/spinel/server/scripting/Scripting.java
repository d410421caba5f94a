package dev.spinel.server.scripting;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.protocol.Args;
import dev.spinel.server.engine.ports.BusyScript;
import dev.spinel.server.engine.ports.ClientConnection;
import dev.spinel.server.log.Log;
import dev.spinel.server.engine.ports.ScriptFlags;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Keyspace;

/**
 * Lua scripting (EVAL family, SCRIPT): the scripts cache and the runner.
 *
 * <p>Atomicity: a script runs atomically against every other client. Spinel has no global lock, and a
 * script may touch keys it did not declare in KEYS (and SELECT other databases), so {@link #run} holds
 * every stripe of every database for the script's whole duration, taken in the global order like EXEC
 * (so it cannot deadlock with multi-key commands; the stripe locks are reentrant, so EVAL inside EXEC
 * works). Other clients' commands wait for the script to end ({@link #running}: the engine postpones
 * them without blocking their loops). Past {@code busy-reply-threshold} (alias {@code lua-time-limit})
 * the engine answers BUSY to commands of other clients, except those flagged {@code allow_busy} (SCRIPT
 * KILL, SHUTDOWN NOSAVE...), and SCRIPT KILL stops a script that has not written yet. Event-loop clients'
 * scripts run on the engine's script thread, so every client, the caller's loop neighbours included, is
 * answered meanwhile.
 *
 * <p>Thread-safety: the cache is concurrent; the Lua state is created and used under the stripes.
 */
public final class Scripting implements BusyScript, ScriptFlags {
    private final ScriptCache cache = new ScriptCache();
    private ScriptRunner runner;
    /**
     * The functions' {@code redis} library: filled with the runner's call, pcall... when the runner is
     * created (libraries may be loaded from files before any script runs).
     */
    private org.luaj.vm2.LuaTable functionsRedis;
    private final FunctionLibraries functions = new FunctionLibraries(this::functionsRedis, () -> {
        ScriptRunner r = runner;
        if (r != null) {
            r.check();
        }
    });
    /**
     * Scripts from before they take their stripes until after they released them (two at most: one waiting
     * for the stripes of an EXEC that runs another): the engine postpones other clients' requests meanwhile
     * rather than let their loops block on the stripes.
     */
    private final AtomicInteger scriptsRunning = new AtomicInteger();
    /** Guards the wait of {@link #awaitEndOrBusy}; notified at each script's end when someone waits. */
    private final Object ended = new Object();
    /** Threads in {@link #awaitEndOrBusy} (so that a script's end notifies only when someone waits). */
    private volatile int awaiting;
    /** Set by {@link #abort}: the script stops even if it wrote (the server is going away). */
    private volatile boolean aborting;
    /** When the running script started (System.nanoTime()), or 0 when none runs. */
    private volatile long startedAt;
    private volatile boolean killRequested;
    /** Whether what runs is a function (FCALL) rather than a script (EVAL): which KILL stops it, BUSY's text. */
    private volatile boolean functionRunning;
    /** Whether the running script has written (then SCRIPT KILL refuses: UNKILLABLE). */
    private volatile boolean wrote;
    /** Set by SCRIPT FLUSH: the next script starts from a fresh Lua state's settings. */
    private volatile boolean luaReset;

    public ScriptCache cache() {
        return cache;
    }

    /** What a script command's script declares, before it runs (see {@link ScriptFlags}). */
    @Override
    public int declared(ScriptKind kind, Args args) {
        return switch (kind) {
            case BODY -> ScriptCache.declaredFlags(args.copy(1));
            case SHA -> {
                ScriptCache.Script script = args.length(1) == 40 ? cache.get(args.string(1)) : null;
                if (script == null || !script.shebang()) {
                    yield UNDECLARED;
                }
                yield (script.readOnly() ? NO_WRITES : 0) | (script.allowOom() ? ALLOW_OOM : 0)
                        | (script.allowStale() ? ALLOW_STALE : 0);
            }
            case FUNCTION -> {
                int f = functions.declaredFlags(args.string(1));
                yield f < 0 ? UNDECLARED : f & (NO_WRITES | ALLOW_OOM | ALLOW_STALE);
            }
        };
    }

    @Override
    public boolean known(ScriptKind kind, Args args) {
        return switch (kind) {
            case BODY -> true;
            case SHA -> args.length(1) == 40 && cache.get(args.string(1)) != null;
            case FUNCTION -> functions.declaredFlags(args.string(1)) >= 0;
        };
    }

    /** Made on first use: a server that runs no script or function loads no Lua. Under the stripes. */
    private org.luaj.vm2.LuaTable functionsRedis() {
        org.luaj.vm2.LuaTable t = functionsRedis;
        if (t == null) {
            t = new org.luaj.vm2.LuaTable();
            functionsRedis = t;
        }
        return t;
    }

    /** The function libraries (Redis 7.0 functions). */
    public FunctionLibraries functions() {
        return functions;
    }

    /** SCRIPT FLUSH: empties the cache and, as Redis's new Lua state does, resets the libraries' settings. */
    public void flush() {
        cache.flush();
        luaReset = true;
    }

    /** Runs a cached script for {@code caller}; its reply (or a RedisError) as the caller's reply. */
    public void run(Session caller, ScriptCache.Script script, byte[][] keys, byte[][] argv, boolean readOnly) {
        LuaDebugger d = debugging;
        debugging = null; // the session's own script only, not one its redis commands would run
        atomically(caller, r -> {
            r.debugger(d);
            try {
                r.run(caller, script, keys, argv, readOnly);
            } finally {
                r.debugger(null);
            }
        });
    }

    /** The clients that asked for SCRIPT DEBUG SYNC (weak: a client gone is forgotten). */
    private final java.util.Map<Session, Boolean> debugClients = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());
    /** How many clients asked for it: EVAL looks them up only when some did. */
    private volatile int debugClientCount;
    /** The session whose EVAL is starting, between {@link #debugSession} and {@link #run}; the script thread's. */
    private LuaDebugger debugging;

    /** SCRIPT DEBUG SYNC (true) or NO (false) for {@code caller}'s next EVALs. */
    public void debugMode(Session caller, boolean sync) {
        synchronized (debugClients) {
            if (sync) {
                debugClients.put(caller, Boolean.TRUE);
            } else {
                debugClients.remove(caller);
            }
            debugClientCount = debugClients.size();
        }
    }

    /** Whether {@code caller}'s EVALs run in a debugging session (SCRIPT DEBUG SYNC). */
    public boolean debugMode(Session caller) {
        return debugClientCount != 0 && debugClients.containsKey(caller);
    }

    /**
     * EVAL in a debugging session (Redis's evalGenericCommandWithDebugging in sync mode): {@code eval} runs with the
     * debugger of {@code source} installed, reading the caller's debugger commands from its connection (lent to the
     * script thread) and writing the session's log to it; whatever happens, the session then ends with its
     * {@code <endsession>} mark, and the connection closes after the EVAL's reply (or error).
     */
    public void debugSession(Session caller, byte[] source, Runnable eval) {
        ClientConnection conn = caller.connection();
        LuaDebugger d = new LuaDebugger(conn, source, () -> caller.engine().config().busyReplyThreshold.value(), () -> {
            if (killRequested) { // shutdown while the script waits for the caller
                throw new org.luaj.vm2.LuaError(LuaErrors.plain("Script killed by user with SCRIPT KILL..."));
            }
        }, stopped -> {
            // While the script waits for the caller, its clock stands still, as Redis (blocked in the debugger's read)
            // serves no one: other clients wait rather than get BUSY; it restarts when the script resumes, as Redis's.
            startedAt = stopped ? 0 : Math.max(1, System.nanoTime());
        });
        conn.tapInput(d::received);
        Log.warning("Redis synchronous debugging eval session started");
        debugging = d;
        try {
            eval.run();
        } finally {
            debugging = null;
            d.end();
            conn.tapInput(null);
            Log.warning("Redis synchronous debugging eval session ended");
            caller.closeAfterReply();
        }
    }

    /**
     * FCALL / FCALL_RO: runs the function named {@code name} (looked up under the stripes, so that a
     * concurrent FUNCTION DELETE cannot race it). Throws "Function not found" when there is none.
     */
    public void runFunction(Session caller, String name, byte[][] keys, byte[][] argv, boolean readOnly, byte[][] command) {
        atomically(caller, r -> {
            FunctionLibraries.Function f = functions.function(name);
            if (f == null) {
                throw new RedisError("ERR Function not found");
            }
            if ((f.flags() & FunctionLibraries.NO_CLUSTER) != 0 && caller.engine().config().clusterEnabled.value()) {
                throw new RedisError("ERR Can not run script on cluster, 'no-cluster' flag is set.");
            }
            if ((f.flags() & FunctionLibraries.NO_WRITES) == 0) {
                // Redis 7.0's scriptPrepareForRun for a function that may write.
                if (readOnly) {
                    throw new RedisError("ERR Can not execute a script with write flag using *_ro command.");
                }
                if ((f.flags() & FunctionLibraries.ALLOW_OOM) == 0 && caller.engine().outOfMemory()) {
                    throw new RedisError("OOM command not allowed when used memory > 'maxmemory'.");
                }
            }
            running = new RunningFunction(name, command, System.nanoTime());
            functionRunning = true;
            try {
                r.runFunction(caller, f, keys, argv, readOnly);
            } finally {
                functionRunning = false;
                running = null;
            }
        });
    }

    /**
     * Changes the function libraries (FUNCTION LOAD, DELETE, FLUSH, RESTORE) under every stripe: never
     * while a script or function runs, and atomically for snapshots (which take the codes under them).
     */
    public <T> T changeFunctions(Session caller, Function<FunctionLibraries, T> change) {
        Keyspace ks = caller.engine().keyspace();
        int n = ks.databases();
        for (int i = 0; i < n; i++) {
            ks.db(i).lockAll();
        }
        try {
            return change.apply(functions);
        } finally {
            for (int i = n - 1; i >= 0; i--) {
                ks.db(i).unlockAll();
            }
        }
    }

    private void atomically(Session caller, Consumer<ScriptRunner> body) {
        Engine engine = caller.engine();
        Keyspace ks = engine.keyspace();
        int n = ks.databases();
        scriptsRunning.incrementAndGet();
        try {
            runLocked(caller, body, engine, ks, n);
        } finally {
            if (scriptsRunning.decrementAndGet() == 0 && awaiting != 0) {
                synchronized (ended) {
                    ended.notifyAll();
                }
            }
        }
    }

    private void runLocked(Session caller, Consumer<ScriptRunner> body, Engine engine, Keyspace ks, int n) {
        for (int i = 0; i < n; i++) {
            ks.db(i).lockAll();
        }
        try {
            if (runner == null) {
                runner = new ScriptRunner(engine, this);
                runner.fillRedisLib(functionsRedis());
                luaReset = false;
            } else if (luaReset) {
                luaReset = false;
                runner.resetLuaState(); // the scripts' Lua state only: SCRIPT FLUSH leaves functions alone, as in Redis
            }
            killRequested = aborting;
            wrote = false;
            startedAt = Math.max(1, System.nanoTime());
            body.accept(runner);
        } catch (RedisError e) {
            throw e;
        } catch (RuntimeException e) {
            // A bug of ours, not of the script: an error reply rather than a dropped connection.
            throw new RedisError("ERR Error running script: " + e);
        } finally {
            startedAt = 0;
            for (int i = n - 1; i >= 0; i--) {
                ks.db(i).unlockAll();
            }
        }
    }

    /** True while a script runs or is about to (waiting for its stripes). */
    @Override
    public boolean running() {
        return scriptsRunning.get() != 0;
    }

    /**
     * Waits until no script runs or the running one is busy (past {@code thresholdMillis}; 0: until it
     * ends). An event loop waits here for a script instead of on its stripes, so that it answers BUSY once
     * the threshold passes (and runs SCRIPT KILL) rather than waiting for the script's end.
     */
    @Override
    public void awaitEndOrBusy(long thresholdMillis) {
        synchronized (ended) {
            awaiting++;
            try {
                while (running() && !busy(thresholdMillis)) {
                    long t = startedAt;
                    long left;
                    if (thresholdMillis <= 0) {
                        left = 0; // never busy: until the script's end
                    } else if (t == 0) {
                        left = 10; // the script still waits for its stripes: its clock has not started
                    } else {
                        left = Math.max(1, thresholdMillis - (System.nanoTime() - t) / 1_000_000 + 1);
                    }
                    ended.wait(left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                awaiting--;
            }
        }
    }

    /**
     * Shutdown: stops the running script (and any later one) at its next check, even one that wrote. Called
     * once the append-only log is closed, so that nothing of a script stopped half-way is logged.
     */
    public void abort() {
        aborting = true;
        killRequested = true;
    }

    /** True when the running script has written (SCRIPT KILL would answer UNKILLABLE). */
    public boolean wroteSinceStart() {
        return startedAt != 0 && wrote;
    }

    /** True when a script has been running for more than {@code thresholdMillis} (0: never busy). */
    @Override
    public boolean busy(long thresholdMillis) {
        long t = startedAt;
        return t != 0 && thresholdMillis > 0 && System.nanoTime() - t > thresholdMillis * 1_000_000;
    }

    /** SCRIPT KILL's and FUNCTION KILL's outcomes (WRONG_KIND: a function for SCRIPT KILL, or the reverse). */
    public enum KillResult { NOT_BUSY, UNKILLABLE, WRONG_KIND, KILLED }

    /** The function FCALL runs, for FUNCTION STATS: its name, the command as received, when it started. */
    public record RunningFunction(String name, byte[][] command, long startedNanos) {
    }

    private volatile RunningFunction running;

    /** The function running now, or null (none, or an EVAL script). */
    public RunningFunction runningFunction() {
        return running;
    }

    /** True when a function (FCALL) runs, false for a script (EVAL) or nothing. */
    @Override
    public boolean functionRunning() {
        return startedAt != 0 && functionRunning;
    }

    /** SCRIPT KILL: asks the running script to stop at its next instruction, unless it has written. */
    public KillResult kill() {
        return kill(false);
    }

    /** SCRIPT KILL ({@code function} false) or FUNCTION KILL (true), with Redis 7.0's scriptKill checks. */
    public KillResult kill(boolean function) {
        if (startedAt == 0) {
            return KillResult.NOT_BUSY;
        }
        if (wrote) {
            return KillResult.UNKILLABLE;
        }
        if (functionRunning != function) {
            return KillResult.WRONG_KIND;
        }
        killRequested = true;
        return KillResult.KILLED;
    }

    boolean killRequested() {
        return killRequested;
    }

    void wrote() {
        wrote = true;
    }
}
