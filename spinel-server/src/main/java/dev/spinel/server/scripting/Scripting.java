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
 * works). Other clients' commands wait for the script to end. There is no script timeout: Redis's
 * {@code busy-reply-threshold}, BUSY replies and SCRIPT KILL are not implemented, so a script that
 * never ends blocks every other client.
 *
 * <p>Thread-safety: the cache is concurrent; the Lua state is created and used under the stripes.
 */
public final class Scripting {
    private final ScriptCache cache = new ScriptCache();
    private ScriptRunner runner;

    public ScriptCache cache() {
        return cache;
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
                runner = new ScriptRunner(engine);
            }
            runner.run(caller, script, keys, argv, readOnly);
        } catch (dev.spinel.server.engine.RedisError e) {
            throw e;
        } catch (RuntimeException e) {
            // A bug of ours, not of the script: an error reply rather than a dropped connection.
            throw new dev.spinel.server.engine.RedisError("ERR Error running script: " + e);
        } finally {
            for (int i = n - 1; i >= 0; i--) {
                ks.db(i).unlockAll();
            }
        }
    }
}
