package dev.spinel.server.scripting;

import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.store.Keyspace;

/**
 * Lua scripting (EVAL family, SCRIPT): the scripts cache and the runner.
 *
 * <p>Atomicity: a script runs atomically against every other client. Spinel has no global lock, and a
 * script may touch keys it did not declare in KEYS (and SELECT other databases), so {@link #run} holds
 * every stripe of every database for the script's whole duration, taken in the global order like EXEC
 * (so it cannot deadlock with multi-key commands; the stripe locks are reentrant, so EVAL inside EXEC
 * works). Other clients' commands wait for the script to end. Past {@code busy-reply-threshold}
 * (alias {@code lua-time-limit}) the engine answers BUSY to new commands of other clients, except
 * those flagged {@code allow_busy} (SCRIPT KILL, SHUTDOWN...), and SCRIPT KILL stops a script that has
 * not written yet. Unlike Redis, the clients of the event loop running the script are not served at
 * all until it ends (that loop is busy), so SCRIPT KILL must come from a connection on another loop.
 *
 * <p>Thread-safety: the cache is concurrent; the Lua state is created and used under the stripes.
 */
public final class Scripting {
    private final ScriptCache cache = new ScriptCache();
    private ScriptRunner runner;
    /** When the running script started (System.nanoTime()), or 0 when none runs. */
    private volatile long startedAt;
    private volatile boolean killRequested;
    /** Whether the running script has written (then SCRIPT KILL refuses: UNKILLABLE). */
    private volatile boolean wrote;
    /** Set by SCRIPT FLUSH: the next script starts from a fresh Lua state's settings. */
    private volatile boolean luaReset;

    public ScriptCache cache() {
        return cache;
    }

    /** SCRIPT FLUSH: empties the cache and, as Redis's new Lua state does, resets the libraries' settings. */
    public void flush() {
        cache.flush();
        luaReset = true;
    }

    /** Runs a cached script for {@code caller}; its reply (or a RedisError) as the caller's reply. */
    public void run(Session caller, ScriptCache.Script script, byte[][] keys, byte[][] argv, boolean readOnly) {
        Engine engine = caller.engine();
        Keyspace ks = engine.keyspace();
        int n = ks.databases();
        for (int i = 0; i < n; i++) {
            ks.db(i).lockAll();
        }
        try {
            if (runner == null) {
                runner = new ScriptRunner(engine, this);
                luaReset = false;
            } else if (luaReset) {
                luaReset = false;
                runner.resetLuaState();
            }
            killRequested = false;
            wrote = false;
            startedAt = Math.max(1, System.nanoTime());
            runner.run(caller, script, keys, argv, readOnly);
        } catch (dev.spinel.server.engine.RedisError e) {
            throw e;
        } catch (RuntimeException e) {
            // A bug of ours, not of the script: an error reply rather than a dropped connection.
            throw new dev.spinel.server.engine.RedisError("ERR Error running script: " + e);
        } finally {
            startedAt = 0;
            for (int i = n - 1; i >= 0; i--) {
                ks.db(i).unlockAll();
            }
        }
    }

    /** True when a script has been running for more than {@code thresholdMillis} (0: never busy). */
    public boolean busy(long thresholdMillis) {
        long t = startedAt;
        return t != 0 && thresholdMillis > 0 && System.nanoTime() - t > thresholdMillis * 1_000_000;
    }

    /** SCRIPT KILL's outcomes. */
    public enum KillResult { NOT_BUSY, UNKILLABLE, KILLED }

    /** SCRIPT KILL: asks the running script to stop at its next instruction, unless it has written. */
    public KillResult kill() {
        if (startedAt == 0) {
            return KillResult.NOT_BUSY;
        }
        if (wrote) {
            return KillResult.UNKILLABLE;
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
