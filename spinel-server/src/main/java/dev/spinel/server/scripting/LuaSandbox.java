package dev.spinel.server.scripting;

import java.nio.charset.StandardCharsets;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LoadState;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaThread;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.BaseLib;
import org.luaj.vm2.lib.CoroutineLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.ThreeArgFunction;
import org.luaj.vm2.lib.TwoArgFunction;
import org.luaj.vm2.lib.VarArgFunction;
import org.luaj.vm2.lib.jse.JseMathLib;

/**
 * The Lua environment scripts run in, sandboxed like Redis 7.0's: the base library without
 * {@code dofile}/{@code loadfile}/{@code print}, {@code string}, {@code table}, {@code math},
 * {@code coroutine}, {@code bit} (LuaBitOp), {@code cjson} (lua-cjson), {@code cmsgpack} (lua-cmsgpack),
 * {@code struct}, Lua 5.1's {@code unpack}/{@code loadstring} and a few 5.1 aliases, no {@code os},
 * {@code io}, {@code package}/{@code require} or {@code debug}. Globals are read-only: reading a global
 * that does not exist and creating or changing one are errors with Redis's texts; the library tables
 * are read-only too. {@code math.random} is Redis's deterministic {@link Rand48}.
 *
 * <p>Thread-safety: none; used by one script at a time (the caller holds every stripe).
 */
final class LuaSandbox {
    final Globals globals = new Globals();
    /** The environment scripts see (read-only view of {@link #globals}). */
    final LuaTable env = new Globals();
    final Rand48 rand = new Rand48();
    /** The configuration of the {@code cjson} library (kept in the Lua state, as lua-cjson does). */
    final CjsonLib cjson = new CjsonLib();
    private final InstructionHook hook;

    LuaSandbox(LuaTable redis, Runnable check) {
        // The instruction hook (LuaJ calls a Globals' debuglib on every instruction of the closures whose
        // environment it is, and of the functions they create): SCRIPT KILL and the busy threshold.
        InstructionHook hook = new InstructionHook(check, globals);
        this.hook = hook;
        ((Globals) env).debuglib = hook;
        globals.debuglib = hook; // chunks made by load/loadstring run with the real globals
        globals.load(new BaseLib());
        globals.load(new org.luaj.vm2.lib.PackageLib()); // the other libraries register in package.loaded
        globals.load(new TableLib());
        globals.load(new StringLib());
        globals.load(new JseMathLib());
        globals.load(new CoroutineLib());
        LoadState.install(globals);
        LuaC.install(globals);
        for (String name : new String[] {"dofile", "loadfile", "print", "rawlen", "package", "require", "module"}) {
            globals.rawset(name, LuaValue.NIL);
        }
        LuaValue pcall = globals.rawget("pcall");
        globals.rawset("pcall", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                // Lua 5.1 names no function in the argument errors of a C function pcall calls directly.
                if (args.arg1() instanceof LibFunction f) {
                    args = LuaValue.varargsOf(f.anonymous(), args.subargs(2));
                }
                // Redis 7.0's pcall hands an error table's text to the handler, not the table.
                Varargs r = pcall.invoke(args);
                if (!r.arg1().toboolean() && r.arg(2).istable() && r.arg(2).rawget("err").isstring()) {
                    return LuaValue.varargsOf(LuaValue.FALSE, r.arg(2).rawget("err"));
                }
                if (!r.arg1().toboolean() && r.arg(2).type() == LuaValue.TSTRING) {
                    return LuaValue.varargsOf(LuaValue.FALSE, LuaValue.valueOf(LuaErrors.luaText(LuaErrors.chomp(r.arg(2).tojstring()))));
                }
                return r;
            }
        });
        LuaValue error = globals.rawget("error");
        globals.rawset("error", new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue message, LuaValue level) {
                // error(msg, 0): Lua 5.1 adds no position; LuaJ adds its own whatever the level, except to an
                // error object, which it keeps as given
                if (message.isnil() || message.isstring() && level.optint(1) == 0) {
                    throw new LuaError(message); // error(): the error object is nil, where LuaJ makes it the text "null"
                }
                if (message.isstring() && level.optint(1) >= 2) {
                    // LuaJ gives the position of level 1 whatever the level: Lua 5.1's, of the caller's caller...
                    LuaValue text = message.type() == LuaValue.TNUMBER ? LuaValue.valueOf(LibFunction.numberToString(message.todouble())) : message;
                    throw new LuaError(LuaValue.valueOf(hook.where(level.optint(1))).concat(text));
                }
                return error.call(message, level);
            }
        });
        LuaValue table = globals.rawget("table");
        Lua51Limits.install(globals); // unpack (global and table.unpack), string.byte, string.rep with Lua 5.1's bounds
        numbersAsLua51(table);
        LuaValue load = sourceOnly(globals.rawget("load"));
        globals.rawset("load", load);
        globals.rawset("loadstring", loadstring(load));
        table.rawset("getn", new org.luaj.vm2.lib.OneArgFunction() {
            @Override
            public LuaValue call(LuaValue t) {
                return LuaValue.valueOf(t.checktable().length());
            }
        });
        LuaValue string = globals.rawget("string");
        string.rawset("gfind", string.rawget("gmatch"));
        LuaValue math = globals.rawget("math");
        math.rawset("mod", math.rawget("fmod"));
        math.rawset("random", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return rand.random(args);
            }
        });
        math.rawset("randomseed", new org.luaj.vm2.lib.OneArgFunction() {
            @Override
            public LuaValue call(LuaValue seed) {
                rand.seed((int) seed.checkdouble());
                return NIL;
            }
        });
        globals.rawset("redis", redis);
        globals.rawset("bit", BitLib.create());
        globals.rawset("cjson", cjson.table());
        globals.rawset("cmsgpack", CmsgpackLib.create());
        globals.rawset("struct", StructLib.create());
        Lua51Coroutines.install(globals, (LuaTable) globals.rawget("coroutine"));
        for (String lib : new String[] {"string", "table", "math", "coroutine", "redis", "bit", "cjson", "cmsgpack", "struct"}) {
            globals.rawset(lib, readOnly(globals.rawget(lib)));
        }
        LuaTable meta = new LuaTable();
        meta.rawset("__index", new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue t, LuaValue key) {
                LuaValue v = globals.rawget(key);
                if (v.isnil()) {
                    throw new LuaError("Script attempted to access nonexistent global variable '" + key.tojstring() + "'");
                }
                return v;
            }
        });
        meta.rawset("__newindex", READONLY);
        meta.rawset("__metatable", LuaValue.FALSE);
        env.setmetatable(meta);
        globals.rawset("_G", env);
        protectMetatables(meta);
    }

    /**
     * Redis marks _G, its metatable and the library tables read-only: setmetatable on them fails with "Attempt to
     * modify a readonly table", getmetatable(_G) gives a metatable that cannot be changed either, and the
     * libraries have none. Spinel's read-only tables are proxies whose metatables LuaJ protects with
     * __metatable (its own "cannot change a protected metatable"); these two wrappers answer as Redis does.
     */
    private void protectMetatables(LuaTable envMeta) {
        LuaValue set = globals.rawget("setmetatable");
        LuaValue get = globals.rawget("getmetatable");
        LuaTable envMetaView = readOnly(envMeta);
        globals.rawset("setmetatable", new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue t, LuaValue mt) {
                if (isReadOnly(t)) {
                    throw new LuaError("Attempt to modify a readonly table", 0);
                }
                return set.call(t, mt);
            }
        });
        globals.rawset("getmetatable", new org.luaj.vm2.lib.OneArgFunction() {
            @Override
            public LuaValue call(LuaValue t) {
                if (t == env) {
                    return envMetaView;
                }
                return isReadOnly(t) ? NIL : get.call(t);
            }
        });
    }

    private static boolean isReadOnly(LuaValue t) {
        LuaValue mt = t.istable() ? t.getmetatable() : null;
        return mt != null && mt.rawget("__newindex") == READONLY;
    }

    static final ThreeArgFunction READONLY = new ThreeArgFunction() {
        @Override
        public LuaValue call(LuaValue t, LuaValue k, LuaValue v) {
            throw new LuaError("Attempt to modify a readonly table");
        }
    };

    /**
     * A proxy that reads through {@code index} (a table, or a function of (table, key)) and refuses every
     * assignment with Redis's "Attempt to modify a readonly table".
     */
    static LuaTable readOnly(LuaValue index) {
        LuaTable proxy = new LuaTable();
        LuaTable meta = new LuaTable();
        meta.rawset("__index", index);
        meta.rawset("__newindex", READONLY);
        meta.rawset("__metatable", LuaValue.FALSE);
        proxy.setmetatable(meta);
        return proxy;
    }

    /**
     * Installs (or, null, removes) the debugger of a SCRIPT DEBUG session: a hook of its own then runs, which calls it
     * on every instruction; the normal hook has no debugger code at all (a check of one field cost ~20 % of a
     * CPU-bound script's time, measured with the check inside it).
     */
    void debugger(LuaDebugger d) {
        InstructionHook h = d == null ? hook : new DebuggingHook(hook.check, globals, d);
        ((Globals) env).debuglib = h;
        globals.debuglib = h;
    }

    /** The hook of a debugging session: the normal one's work, then the debugger's (luaLdbLineHook). */
    private static final class DebuggingHook extends InstructionHook {
        private final LuaDebugger debugger;

        DebuggingHook(Runnable check, Globals globals, LuaDebugger debugger) {
            super(check, globals);
            this.debugger = debugger;
        }

        @Override
        public void onInstruction(int pc, Varargs v, int top) {
            LuaFrames f = frames();
            int previous = f.depth > 0 ? f.pcs[f.depth - 1] : -1;
            super.onInstruction(pc, v, top);
            if (f.depth > 0 && f.functions[f.depth - 1] instanceof LuaClosure c) {
                debugger.instruction(c, pc, previous, f);
            }
        }
    }

    /** Sets KEYS and ARGV for the next run (Redis sets them as globals before each call). */
    void keysAndArgs(LuaTable keys, LuaTable argv) {
        globals.rawset("KEYS", keys);
        globals.rawset("ARGV", argv);
    }

    /**
     * Runs {@code check} every 256 instructions; no call stack, no traceback in error messages. Once the check
     * has thrown (SCRIPT/FUNCTION KILL, FUNCTION LOAD timeout) it runs on every instruction until it passes
     * again (the next script), as Redis then hooks every line: a pcall that caught the error cannot keep the
     * script going, the very next instruction after it raises the error again.
     *
     * <p>It also keeps the frames of the script's thread (each Lua function's registers and current
     * instruction), so that a type error can name its operand as Lua 5.1 does ({@link Lua51TypeErrors}): LuaJ
     * asks {@link #traceback} for text to append to an error's message while the failing frame is still on
     * top, and gets {@link LuaErrors#LUA51_TEXT} followed by Lua 5.1's text, which {@link LuaErrors#chomp}
     * puts in place of LuaJ's. Each coroutine (a Java thread of its own in LuaJ) has its own frames.
     */
    private static class InstructionHook extends org.luaj.vm2.lib.DebugLib {
        final Runnable check;
        private final Globals running;
        private int count;
        private boolean every;

        /** {@code globals}: the Globals whose {@code running} field names the coroutine that runs. */
        InstructionHook(Runnable check, Globals globals) {
            this.check = check;
            this.running = globals;
        }

        /**
         * The frames of the Lua thread (the script's main one or a coroutine) that runs now, kept in the
         * thread's {@code callstack} field, which only LuaJ's own DebugLib (replaced by this hook) would use.
         */
        final LuaFrames frames() {
            LuaThread t = running.running;
            if (t.callstack instanceof LuaFrames f) {
                return f;
            }
            LuaFrames f = new LuaFrames();
            t.callstack = f;
            return f;
        }

        @Override
        public void onCall(LuaFunction f) {
            frames().push(f, null);
        }

        @Override
        public void onCall(LuaClosure c, Varargs varargs, LuaValue[] stack) {
            frames().push(c, stack);
        }

        @Override
        public void onReturn() {
            frames().pop();
        }

        @Override
        public void onInstruction(int pc, Varargs v, int top) {
            LuaFrames f = frames();
            if (f.depth > 0) {
                f.pcs[f.depth - 1] = pc;
            }
            if ((++count & 0xff) == 0 || every) {
                every = true;
                check.run();
                every = false;
            }
        }

        /** Lua 5.1's luaL_where(level) for error(msg, level) called by the running Lua function. */
        String where(int level) {
            return frames().where(level);
        }

        @Override
        public String traceback(int level) {
            LuaFrames f = frames();
            int top = f.depth - 1;
            if (top >= 0 && f.functions[top] instanceof LuaClosure c) {
                String text = Lua51TypeErrors.message(c, f.stacks[top], f.pcs[top]);
                if (text != null) {
                    return LuaErrors.LUA51_TEXT + text;
                }
            }
            return "";
        }
    }

    /**
     * Lua 5.1's loadstring(s [, chunkname]) over LuaJ's load, refusing precompiled chunks as Redis's Lua does
     * (its parser reads them as source): nil and Redis's syntax error for a chunk starting with ESC, the
     * signature of string.dump's output, which LuaJ would otherwise run.
     */
    private static LuaValue loadstring(LuaValue load) {
        return new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                LuaValue chunk = args.arg1();
                if (chunk.isstring() && !chunk.isnumber()) {
                    LuaString s = chunk.checkstring();
                    if (s.m_length > 0 && s.m_bytes[s.m_offset] == 27) {
                        String name = args.narg() >= 2 && args.arg(2).isstring() ? args.arg(2).tojstring() : cString(s);
                        return LuaValue.varargsOf(LuaValue.NIL,
                                LuaValue.valueOf(chunkId(name) + ":1: unexpected symbol near 'char(27)'"));
                    }
                }
                return load.invoke(args);
            }
        };
    }

    /**
     * LuaJ's load(chunk [, chunkname]) limited to source (mode "t"): a precompiled chunk, which Redis's Lua
     * refuses, cannot be loaded through it, whether given as a string or by a reader function.
     */
    private static LuaValue sourceOnly(LuaValue load) {
        return new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return load.invoke(LuaValue.varargsOf(new LuaValue[] {args.arg1(), args.arg(2), LuaValue.valueOf("t")}));
            }
        };
    }

    /**
     * tostring and table.concat write numbers as Lua 5.1 does ({@code %.14g}: 0.0003, 1e+100), where LuaJ
     * writes Java's float text (3.0E-4, Infinity). The {@code ..} operator is LuaJ's own and keeps its text.
     */
    private void numbersAsLua51(LuaValue table) {
        LuaValue tostring = globals.rawget("tostring");
        globals.rawset("tostring", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                LuaValue v = args.arg1();
                if (v.type() == LuaValue.TNUMBER) {
                    return LuaValue.valueOf(LibFunction.numberToString(v.todouble()));
                }
                return tostring.invoke(args);
            }
        });
        LuaValue concat = table.rawget("concat");
        table.rawset("concat", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                LuaValue t = args.arg1();
                if (!t.istable()) {
                    return concat.invoke(args);
                }
                // The elements concat will read, numbers turned into Lua 5.1's text; an element that is
                // neither is refused with Redis's Lua text.
                int i = args.narg() >= 3 && !args.arg(3).isnil() ? args.arg(3).checkint() : 1;
                int j = args.narg() >= 4 && !args.arg(4).isnil() ? args.arg(4).checkint() : t.length();
                LuaTable copy = new LuaTable();
                for (int k = i; k <= j; k++) {
                    LuaValue v = t.rawget(k);
                    if (v.type() == LuaValue.TNUMBER) {
                        copy.rawset(k, LuaValue.valueOf(LibFunction.numberToString(v.todouble())));
                    } else if (v.isstring()) {
                        copy.rawset(k, v);
                    } else {
                        throw new LuaError("invalid value (" + v.typename() + ") at index " + k + " in table for 'concat'");
                    }
                }
                LuaValue sep = args.arg(2).isnil() ? LuaValue.EMPTYSTRING : args.arg(2); // nil: absent, as Lua 5.1
                return concat.invoke(LuaValue.varargsOf(new LuaValue[] {copy, sep, LuaValue.valueOf(i), LuaValue.valueOf(j)}));
            }
        });
    }

    /** The chunk as C sees it: up to its first NUL. */
    private static String cString(LuaString s) {
        int n = 0;
        while (n < s.m_length && s.m_bytes[s.m_offset + n] != 0) {
            n++;
        }
        return new String(s.m_bytes, s.m_offset, n, StandardCharsets.ISO_8859_1);
    }

    /** Lua 5.1's luaO_chunkid for a string chunk: its first line, cut to fit LUA_IDSIZE. */
    static String chunkId(String source) {
        int len = 0;
        while (len < source.length() && source.charAt(len) != '\n' && source.charAt(len) != '\r') {
            len++;
        }
        int room = 60 - " [string \"...\"] ".length() - 1;
        if (len > room) {
            len = room;
        }
        return len < source.length() ? "[string \"" + source.substring(0, len) + "...\"]" : "[string \"" + source + "\"]";
    }
}
