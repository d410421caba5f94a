package dev.spinel.server.commands.scripting;

import dev.spinel.protocol.Args;
import dev.spinel.server.commands.common.Help;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.scripting.ScriptCache;
import dev.spinel.server.scripting.Scripting;

/**
 * EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT LOAD / EXISTS / FLUSH / HELP, with Redis 7.0's
 * argument checks and error texts. Running a script is {@link Scripting}'s
 * job (atomic: every stripe held). SCRIPT DEBUG SYNC runs a client's next EVALs in a debugging session
 * ({@link Scripting#debugSession}); SCRIPT DEBUG YES, which needs Redis's fork, is refused.
 *
 * <p>Thread-safety: stateless; the scripts cache is concurrent.
 */
public final class ScriptingCommands {
    private static final RedisError NOSCRIPT = new RedisError("NOSCRIPT No matching script. Please use EVAL.");

    private ScriptingCommands() {
    }

    public static void register(CommandTable t, Scripting scripting) {
        // EVAL script numkeys [key [key ...]] [arg [arg ...]]
        t.register("eval", (s, a) -> eval(scripting, s, a, false, false));
        // EVALSHA sha1 numkeys [key [key ...]] [arg [arg ...]]
        t.register("evalsha", (s, a) -> eval(scripting, s, a, true, false));
        // EVAL_RO script numkeys [key [key ...]] [arg [arg ...]]
        t.register("eval_ro", (s, a) -> eval(scripting, s, a, false, true));
        // EVALSHA_RO sha1 numkeys [key [key ...]] [arg [arg ...]]
        t.register("evalsha_ro", (s, a) -> eval(scripting, s, a, true, true));
        // FCALL function numkeys [key [key ...]] [arg [arg ...]]
        t.register("fcall", (s, a) -> fcall(scripting, s, a, false));
        // FCALL_RO function numkeys [key [key ...]] [arg [arg ...]]
        t.register("fcall_ro", (s, a) -> fcall(scripting, s, a, true));
        t.register("script", (s, a) -> {
            throw Errors.SYNTAX;
        });
        t.registerSub("script", "load", (s, a) -> load(scripting, s, a));
        t.registerSub("script", "exists", (s, a) -> exists(scripting, s, a));
        t.registerSub("script", "flush", (s, a) -> flush(scripting, s, a));
        t.registerSub("script", "help", ScriptingCommands::help);
        t.registerSub("script", "kill", (s, a) -> kill(scripting, s, a));
        t.registerSub("script", "debug", (s, a) -> debug(scripting, s, a));
    }

    private static void eval(Scripting scripting, Session s, Args a, boolean bySha, boolean readOnly) {
        if (bySha && a.length(1) != 40) {
            throw NOSCRIPT;
        }
        if (scripting.debugMode(s)) { // SCRIPT DEBUG SYNC: the whole EVAL, its argument errors included, in a session
            if (bySha) {
                throw new RedisError("ERR Please use EVAL instead of EVALSHA for debugging");
            }
            scripting.debugSession(s, a.copy(1), () -> evalNow(scripting, s, a, false, readOnly));
            return;
        }
        evalNow(scripting, s, a, bySha, readOnly);
    }

    private static void evalNow(Scripting scripting, Session s, Args a, boolean bySha, boolean readOnly) {
        long numkeys;
        try {
            numkeys = a.parseLong(2);
        } catch (NumberFormatException e) {
            throw Errors.NOT_INTEGER;
        }
        if (numkeys > a.count() - 3) {
            throw new RedisError("ERR Number of keys can't be greater than number of args");
        }
        if (numkeys < 0) {
            throw new RedisError("ERR Number of keys can't be negative");
        }
        ScriptCache cache = scripting.cache();
        ScriptCache.Script script = bySha ? cache.get(a.string(1)) : cache.load(a.copy(1));
        if (script == null) {
            throw NOSCRIPT;
        }
        if (script.noCluster() && s.engine().config().clusterEnabled.value()) { // scriptPrepareForRun's first check
            throw new RedisError(NO_CLUSTER);
        }
        if (script.shebang() && !script.readOnly()) {
            // A script that declares flags and may write (Redis 7.0's scriptPrepareForRun).
            if (readOnly) {
                throw new RedisError("ERR Can not execute a script with write flag using *_ro command.");
            }
            if (!script.allowOom() && s.engine().outOfMemory()) {
                throw new RedisError("OOM command not allowed when used memory > 'maxmemory'.");
            }
        }
        int k = (int) numkeys;
        byte[][] keys = copies(a, 3, k);
        byte[][] argv = copies(a, 3 + k, a.count() - 3 - k);
        scripting.run(s, script, keys, argv, readOnly);
    }

    /** Redis 7.0's refusal of a script or function flagged no-cluster on a cluster node. */
    public static final String NO_CLUSTER = "ERR Can not run script on cluster, 'no-cluster' flag is set.";

    // SCRIPT LOAD script
    private static void load(Scripting scripting, Session s, Args a) {
        s.out().bulk(scripting.cache().load(a.copy(2)).sha());
    }

    // SCRIPT EXISTS sha1 [sha1 ...]
    private static void exists(Scripting scripting, Session s, Args a) {
        ScriptCache cache = scripting.cache();
        s.out().array(a.count() - 2);
        for (int i = 2; i < a.count(); i++) {
            s.out().integer(cache.exists(a.string(i)) ? 1 : 0);
        }
    }

    // SCRIPT FLUSH [ASYNC | SYNC]
    private static void flush(Scripting scripting, Session s, Args a) {
        if (a.count() > 3 || (a.count() == 3 && !a.is(2, "ASYNC") && !a.is(2, "SYNC"))) {
            throw new RedisError("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
        }
        scripting.flush();
        s.out().ok();
    }

    /** SCRIPT DEBUG YES: Redis forks a child whose changes are thrown away; Spinel cannot, and says so. */
    static final String DEBUG_YES_REFUSED = "ERR SCRIPT DEBUG YES is not supported: it needs a fork() to roll the script's "
            + "changes back, which Spinel cannot do. Use SCRIPT DEBUG SYNC (changes are kept)";

    // SCRIPT DEBUG YES|SYNC|NO
    private static void debug(Scripting scripting, Session s, Args a) {
        if (s.out().size() > 0 || s.connection().pendingOutputBytes() > 0) { // Redis's clientHasPendingReplies
            throw new RedisError("ERR SCRIPT DEBUG must be called outside a pipeline");
        }
        if (a.is(2, "NO")) {
            scripting.debugMode(s, false);
        } else if (a.is(2, "YES")) {
            throw new RedisError(DEBUG_YES_REFUSED);
        } else if (a.is(2, "SYNC")) {
            if (!s.connection().lendable() || !s.connection().tapInput(null)) {
                throw new RedisError("ERR SCRIPT DEBUG SYNC needs a network client: this connection cannot be debugged");
            }
            scripting.debugMode(s, true);
        } else {
            throw new RedisError("ERR Use SCRIPT DEBUG YES/SYNC/NO");
        }
        s.out().ok();
    }

    // SCRIPT KILL
    private static void kill(Scripting scripting, Session s, Args a) {
        switch (scripting.kill()) {
            case NOT_BUSY -> throw new RedisError("NOTBUSY No scripts in execution right now.");
            case UNKILLABLE -> throw new RedisError("UNKILLABLE Sorry the script already executed write commands against the dataset."
                    + " You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.");
            case WRONG_KIND -> throw new RedisError("BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.");
            case KILLED -> s.out().ok();
        }
    }

    // FCALL function numkeys [key [key ...]] [arg [arg ...]]  /  FCALL_RO (the same, read-only)
    private static void fcall(Scripting scripting, Session s, Args a, boolean readOnly) {
        long numkeys;
        try {
            numkeys = a.parseLong(2);
        } catch (NumberFormatException e) {
            throw new RedisError("ERR Bad number of keys provided");
        }
        if (numkeys > a.count() - 3) {
            throw new RedisError("ERR Number of keys can't be greater than number of args");
        }
        if (numkeys < 0) {
            throw new RedisError("ERR Number of keys can't be negative");
        }
        int k = (int) numkeys;
        byte[][] keys = copies(a, 3, k);
        byte[][] argv = copies(a, 3 + k, a.count() - 3 - k);
        byte[][] command = new byte[a.count()][];
        for (int i = 0; i < command.length; i++) {
            command[i] = a.copy(i);
        }
        scripting.runFunction(s, a.string(1), keys, argv, readOnly, command);
    }

    // SCRIPT HELP
    private static void help(Session s, Args a) {
        Help.reply(s, "SCRIPT",
                "DEBUG (YES|SYNC|NO)",
                "    Set the debug mode for subsequent scripts executed.",
                "EXISTS <sha1> [<sha1> ...]",
                "    Return information about the existence of the scripts in the script cache.",
                "FLUSH [ASYNC|SYNC]",
                "    Flush the Lua scripts cache. Very dangerous on replicas.",
                "    When called without the optional mode argument, the behavior is determined by the",
                "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
                "    * ASYNC: Asynchronously flush the scripts cache.",
                "    * SYNC: Synchronously flush the scripts cache.",
                "KILL",
                "    Kill the currently executing Lua script.",
                "LOAD <script>",
                "    Load a script into the scripts cache without executing it.");
    }

    /** Copies of {@code n} arguments from {@code from} on (a script's KEYS or ARGV). */
    private static byte[][] copies(Args a, int from, int n) {
        byte[][] out = new byte[n][];
        for (int i = 0; i < n; i++) {
            out[i] = a.copy(from + i);
        }
        return out;
    }
}
