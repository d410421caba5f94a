package dev.spinel.server.scripting;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.CommandSpec;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.protocol.RespReader;
import dev.spinel.protocol.RespValue;
import dev.spinel.protocol.Version;
import dev.spinel.server.acl.Acl;
import dev.spinel.server.acl.CommandIds;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Propagator;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.log.Log;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Runs scripts: one Lua state ({@link LuaSandbox}) and one script session (Redis's Lua client) per
 * server, and the {@code redis} library: {@code call}, {@code pcall}, {@code error_reply},
 * {@code status_reply}, {@code sha1hex}, {@code log}, {@code setresp}, {@code set_repl} (where the next writes
 * are propagated), {@code replicate_commands} (always on, as in Redis 7.0), {@code breakpoint} and {@code debug}
 * (which act only in a SCRIPT DEBUG session, {@link LuaDebugger}; false and nothing outside one).
 * Commands called by a script go through the engine's dispatch ({@link Engine#runFromScript}), so
 * replies, errors, keyspace events, WATCH invalidation and the append-only log are those of the same
 * commands sent by a client.
 *
 * <p>Thread-safety: none of its own. {@link Scripting#run} calls it only while holding every stripe
 * of every database, which makes scripts run one at a time (and the Lua state safe to share).
 */
final class ScriptRunner {
    private final Engine engine;
    private final Session session;
    private final LuaSandbox sandbox;
    // The run in progress.
    private boolean readOnly;
    private boolean allowOom;
    private boolean allowCrossSlot;
    private int resp;
    private long dirtyAtStart;

    private final Scripting owner;
    private boolean slowLogged;
    /** The SCRIPT DEBUG session of the run in progress, or null (see {@link #debugger(LuaDebugger)}). */
    private LuaDebugger debugger;

    ScriptRunner(Engine engine, Scripting owner) {
        this.engine = engine;
        this.owner = owner;
        this.session = engine.newScriptSession();
        this.sandbox = new LuaSandbox(redisLib(), this::check);
    }

    /**
     * Called every few hundred Lua instructions and before each redis.call: stops a script that SCRIPT
     * KILL asked to stop (again and again, so that pcall cannot swallow it, as in Redis), and logs a
     * script that passed busy-reply-threshold once.
     */
    void check() {
        if (owner.killRequested()) {
            throw new LuaError(LuaErrors.plain("Script killed by user with SCRIPT KILL..."));
        }
        if (!slowLogged && owner.busy(engine.config().busyReplyThreshold.value())) {
            slowLogged = true;
            Log.warning("Slow script detected: still in execution after " + engine.config().busyReplyThreshold.value()
                    + " milliseconds. You can try killing the script using the SCRIPT KILL command. Script name is: " + sha + ".");
        }
    }

    private String sha;

    /** What Redis's SCRIPT FLUSH resets with its new Lua state that scripts can see: cjson's settings. */
    void resetLuaState() {
        sandbox.cjson.reset();
    }

    /** Runs {@code script} for {@code caller}; its result (or error) is the caller's reply. */
    void run(Session caller, ScriptCache.Script script, byte[][] keys, byte[][] argv, boolean readOnlyCall) {
        this.readOnly = readOnlyCall || script.readOnly();
        this.allowOom = script.allowOom();
        this.allowCrossSlot = script.allowCrossSlot();
        this.resp = 2;
        this.sha = script.sha();
        this.slowLogged = false;
        engine.beginScript(caller, session, keys);
        this.dirtyAtStart = session.dirtyCount();
        sandbox.keysAndArgs(strings(keys), strings(argv));
        LuaValue result;
        try {
            result = new LuaClosure(script.proto(), sandbox.env).call();
        } catch (LuaError e) {
            throw new RedisError(LuaErrors.scriptFailure(e, script.sha()), LuaErrors.statsCounted(e.getMessageObject()));
        } catch (StackOverflowError e) {
            throw new RedisError("ERR Error running script, stack overflow script: " + script.sha());
        } catch (OutOfMemoryError e) {
            // What the script built is garbage once it has unwound: the server goes on, the caller gets Lua's error.
            throw new RedisError(LuaErrors.outOfMemory(script.sha()));
        } finally {
            session.out().clear();
            engine.endScript(caller, session);
        }
        replyWith(result, caller);
    }

    /**
     * The script's value as the caller's reply. An error table is thrown as the command's error, so that the
     * command counts as failed and INFO errorstats counts it (unless it is the error of a command the script
     * called, already counted then), as Redis does.
     */
    private void replyWith(LuaValue result, Session caller) {
        if (result.istable() && result.rawget("err").isstring()) {
            throw new RedisError(result.rawget("err").tojstring(), LuaErrors.statsCounted(result));
        }
        LuaReplies.toReply(result, caller.out(), resp);
    }

    /**
     * Runs function {@code f} (FCALL, FCALL_RO) for {@code caller}: its callback gets KEYS and ARGV as
     * arguments; the runtime, conversions and errors are EVAL's, the error position says
     * {@code @user_function} and the function's name.
     */
    void runFunction(Session caller, FunctionLibraries.Function f, byte[][] keys, byte[][] argv, boolean readOnlyCall) {
        this.readOnly = readOnlyCall || (f.flags() & FunctionLibraries.NO_WRITES) != 0;
        this.allowOom = (f.flags() & FunctionLibraries.ALLOW_OOM) != 0;
        this.allowCrossSlot = (f.flags() & FunctionLibraries.ALLOW_CROSS_SLOT_KEYS) != 0;
        this.resp = 2;
        this.sha = f.name();
        this.slowLogged = false;
        engine.beginScript(caller, session, keys);
        this.dirtyAtStart = session.dirtyCount();
        LuaValue result;
        try {
            result = f.callback().call(strings(keys), strings(argv));
        } catch (LuaError e) {
            throw new RedisError(LuaErrors.scriptFailure(e, f.name(), "user_function"), LuaErrors.statsCounted(e.getMessageObject()));
        } catch (StackOverflowError e) {
            throw new RedisError("ERR Error running script, stack overflow script: " + f.name());
        } catch (OutOfMemoryError e) {
            throw new RedisError(LuaErrors.outOfMemory(f.name()));
        } finally {
            session.out().clear();
            engine.endScript(caller, session);
        }
        replyWith(result, caller);
    }

    private static LuaTable strings(byte[][] values) {
        LuaTable t = new LuaTable(values.length, 0);
        for (int i = 0; i < values.length; i++) {
            t.rawset(i + 1, LuaString.valueOf(values[i]));
        }
        return t;
    }

    /** redis.call / redis.pcall: {@code raise} distinguishes them (raise the error table, or return it). */
    private LuaValue call(Varargs args, boolean raise) {
        int n = args.narg();
        if (n == 0) {
            return fail(raise, logged(LuaErrors.plain("Please specify at least one argument for this redis lib call")));
        }
        byte[][] argv = argv(args);
        if (argv == null) {
            return fail(raise, logged(LuaErrors.plain("Lua redis lib command arguments must be strings or integers")));
        }
        check();
        LuaDebugger d = debugger;
        if (d != null && d.stepping()) {
            d.logCommand(argv);
        }
        ReplyBuffer out = session.out();
        out.clear();
        session.protocol(resp);
        boolean wrote = allowOom || session.dirtyCount() != dirtyAtStart;
        String refused = engine.runFromScript(session, Args.of(argv), readOnly, wrote, allowCrossSlot);
        if (refused != null) {
            out.clear();
            if (d != null && d.stepping()) {
                // as Redis's scriptCall words it: its own refusals without a code, shared error replies as sent
                d.log("<error> " + (refused.startsWith("ERR ") ? refused.substring(4) : "-" + refused + "\r\n"));
            }
            return fail(raise, LuaErrors.fromCommand(refused));
        }
        if (d != null && d.stepping()) {
            d.logReply(out.array(), out.size());
        }
        if (session.dirtyCount() != dirtyAtStart) {
            owner.wrote();
        }
        RespReader reader = new RespReader(out.array(), 0, out.size());
        RespValue reply = reader.read();
        if (out.size() > 0 && out.array()[0] == '|') {
            reply = reader.read(); // Redis's Lua parser drops a reply's attribute and keeps the reply after it
        }
        out.clear();
        if (reply instanceof RespValue.ErrorReply e) {
            return fail(raise, LuaErrors.fromCommand(e.message()));
        }
        return LuaReplies.toLua(reply, resp);
    }

    /** The arguments of a redis lib call as bytes (numbers formatted as Redis does), or null when one is neither. */
    private static byte[][] argv(Varargs args) {
        byte[][] argv = new byte[args.narg()][];
        for (int i = 0; i < argv.length; i++) {
            LuaValue v = args.arg(i + 1);
            if (v.type() == LuaValue.TSTRING) {
                LuaString s = v.checkstring();
                argv[i] = Arrays.copyOfRange(s.m_bytes, s.m_offset, s.m_offset + s.m_length);
            } else if (v.type() == LuaValue.TNUMBER) {
                argv[i] = LuaReplies.formatNumber(v.todouble()).getBytes(StandardCharsets.US_ASCII);
            } else {
                return null;
            }
        }
        return argv;
    }

    /** redis.acl_check_cmd(command, args...): whether the script's caller may run that command (Redis 7.0). */
    private LuaValue aclCheckCmd(Varargs args) {
        if (args.narg() == 0) {
            throw new LuaError(LuaErrors.plain("Please specify at least one argument for this redis lib call"));
        }
        byte[][] argv = argv(args);
        if (argv == null) {
            throw new LuaError(LuaErrors.plain("Lua redis lib command arguments must be strings or integers"));
        }
        Args a = Args.of(argv);
        int id = CommandIds.resolve(a, 0);
        if (id < 0) {
            throw new LuaError(LuaErrors.plain("Invalid command passed to redis.acl_check_cmd()"));
        }
        CommandSpec spec = CommandIds.spec(id);
        return LuaValue.valueOf(Acl.check(session.user().rules(), id, spec,
                spec.has("no_auth"), a, 0) == 0);
    }

    /** An error of redis.call itself, logged by a debugging session that steps (Redis's luaPushErrorBuff). */
    private LuaTable logged(LuaTable error) {
        LuaDebugger d = debugger;
        if (d != null && d.stepping()) {
            d.log("<error> " + error.rawget("err").tojstring().substring(4));
        }
        return error;
    }

    /**
     * Starts (or, null, ends) a SCRIPT DEBUG session for the next run: the sandbox's hook calls the debugger,
     * redis.call logs to it, redis.debug and redis.breakpoint act.
     */
    void debugger(LuaDebugger d) {
        debugger = d;
        sandbox.debugger(d);
        if (d != null) {
            d.attach(sandbox.env, a -> call(a, true));
        }
    }

    private static LuaValue fail(boolean raise, LuaTable error) {
        if (raise) {
            throw new LuaError(error);
        }
        return error;
    }

    /** Copies the {@code redis} library into {@code target} (the function libraries' one). */
    void fillRedisLib(LuaTable target) {
        LuaTable r = redisLib();
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs next = r.next(k);
            k = next.arg1();
            if (k.isnil()) {
                return;
            }
            target.rawset(k, next.arg(2));
        }
    }

    private LuaTable redisLib() {
        LuaTable r = new LuaTable();
        r.rawset("call", fn(a -> call(a, true)));
        r.rawset("pcall", fn(a -> call(a, false)));
        r.rawset("acl_check_cmd", fn(this::aclCheckCmd));
        r.rawset("error_reply", fn(a -> {
            if (a.narg() != 1 || a.arg1().type() != LuaValue.TSTRING) {
                return LuaErrors.plain("wrong number or type of arguments");
            }
            String e = a.arg1().tojstring();
            return LuaErrors.table(e.startsWith("-") ? e : "-" + e);
        }));
        r.rawset("status_reply", fn(a -> {
            if (a.narg() != 1 || a.arg1().type() != LuaValue.TSTRING) {
                return LuaErrors.plain("wrong number or type of arguments");
            }
            LuaTable t = new LuaTable();
            t.rawset("ok", a.arg1());
            return t;
        }));
        r.rawset("sha1hex", fn(a -> {
            if (a.narg() != 1) {
                throw new LuaError(LuaErrors.plain("wrong number of arguments"));
            }
            LuaString s = a.arg1().checkstring();
            byte[] b = Arrays.copyOfRange(s.m_bytes, s.m_offset, s.m_offset + s.m_length);
            return LuaValue.valueOf(ScriptCache.sha1hex(b));
        }));
        r.rawset("setresp", fn(a -> {
            if (a.narg() != 1) {
                throw new LuaError(LuaErrors.plain("redis.setresp() requires one argument."));
            }
            int v = a.arg1().type() == LuaValue.TNUMBER ? (int) a.arg1().todouble() : 0;
            if (v != 2 && v != 3) {
                throw new LuaError(LuaErrors.plain("RESP version must be 2 or 3."));
            }
            resp = v;
            return LuaValue.NIL;
        }));
        r.rawset("replicate_commands", fn(a -> LuaValue.TRUE)); // always on in Redis 7 (effects replication)
        r.rawset("set_repl", fn(a -> { // Redis's luaRedisSetReplCommand: where the script's next writes go
            if (a.narg() != 1) {
                throw new LuaError(LuaErrors.plain("redis.set_repl() requires two arguments."));
            }
            int flags = a.arg1().isnumber() ? (int) a.arg1().todouble() : 0; // lua_tonumber: 0 when not a number
            if ((flags & ~Propagator.TO_ALL) != 0) {
                throw new LuaError(LuaErrors.plain("Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."));
            }
            session.propagateTargets(flags);
            return LuaValue.NIL;
        }));
        r.rawset("breakpoint", fn(a -> { // stops at the next line of a debugging session; false outside one
            LuaDebugger d = debugger;
            if (d == null) {
                return LuaValue.FALSE;
            }
            d.luabp = true;
            return LuaValue.TRUE;
        }));
        r.rawset("debug", fn(a -> { // logs to a debugging session's console; nothing outside one
            LuaDebugger d = debugger;
            if (d != null) {
                d.debug(a);
            }
            return LuaValue.NONE;
        }));
        r.rawset("REPL_NONE", LuaValue.valueOf(0));
        r.rawset("REPL_AOF", LuaValue.valueOf(1));
        r.rawset("REPL_SLAVE", LuaValue.valueOf(2));
        r.rawset("REPL_REPLICA", LuaValue.valueOf(2));
        r.rawset("REPL_ALL", LuaValue.valueOf(3));
        logAndVersion(r);
        return r;
    }

    /** {@code log}, the {@code LOG_*} levels and the version fields: also what a function library sees while it loads. */
    static void logAndVersion(LuaTable r) {
        r.rawset("log", fn(ScriptRunner::log));
        r.rawset("LOG_DEBUG", LuaValue.valueOf(0));
        r.rawset("LOG_VERBOSE", LuaValue.valueOf(1));
        r.rawset("LOG_NOTICE", LuaValue.valueOf(2));
        r.rawset("LOG_WARNING", LuaValue.valueOf(3));
        r.rawset("REDIS_VERSION", LuaValue.valueOf(Version.REDIS));
        r.rawset("REDIS_VERSION_NUM", LuaValue.valueOf(versionNum(Version.REDIS)));
    }

    // redis.log(level, message, ...)
    private static LuaValue log(Varargs a) {
        if (a.narg() < 2) {
            throw new LuaError(LuaErrors.plain("redis.log() requires two arguments or more."));
        }
        if (a.arg1().type() != LuaValue.TNUMBER) {
            throw new LuaError(LuaErrors.plain("First argument must be a number (log level)."));
        }
        int level = (int) a.arg1().todouble();
        if (level < 0 || level > 3) {
            throw new LuaError(LuaErrors.plain("Invalid debug level."));
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 2; i <= a.narg(); i++) {
            if (i > 2) {
                sb.append(' ');
            }
            sb.append(a.arg(i).isstring() ? a.arg(i).tojstring() : "");
        }
        String msg = sb.toString();
        switch (level) {
            case 0 -> Log.debug(msg);
            case 1 -> Log.verbose(msg);
            case 2 -> Log.notice(msg);
            default -> Log.warning(msg);
        }
        return LuaValue.NIL;
    }

    private static int versionNum(String v) {
        String[] p = v.split("\\.");
        int n = 0;
        for (int i = 0; i < 3; i++) {
            n = n << 8 | (i < p.length ? Integer.parseInt(p[i].replaceAll("\\D.*", "")) : 0);
        }
        return n;
    }

    private interface Fn {
        Varargs apply(Varargs args);
    }

    private static VarArgFunction fn(Fn f) {
        return new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return f.apply(args);
            }
        };
    }
}
