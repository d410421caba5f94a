package dev.spinel.server.scripting;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaThread;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.OneArgFunction;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * {@code coroutine.create}, {@code resume} and {@code wrap} whose errors read as Lua 5.1's (Redis's Lua): LuaJ
 * keeps only the text of a coroutine's error ({@code "@user_script:1 boom"}, a table's error turned into
 * {@code "table: 1f2e"}), where Lua 5.1 hands the error object itself to {@code resume}, and {@code wrap}
 * raises it again in its caller, a string with the caller's position before it.
 *
 * <p>Each coroutine's body is run through {@link Guarded}, which keeps the error object (strings in Lua 5.1's
 * words, {@link LuaErrors#luaText}) for the resume that started it. Thread-safety: as the sandbox; a coroutine
 * runs only while its resumer waits (LuaJ hands over between their threads under a lock).
 */
final class Lua51Coroutines {
    private Lua51Coroutines() {
    }

    /** Replaces create, resume and wrap in {@code coroutine} (before the table is made read-only). */
    static void install(Globals globals, LuaTable coroutine) {
        LuaValue resume = coroutine.rawget("resume");
        coroutine.rawset("create", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue f) {
                return new LuaThread(globals, new Guarded(f.checkfunction()));
            }
        });
        coroutine.rawset("resume", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                Varargs r = resume.invoke(args);
                if (r.arg1().toboolean()) {
                    return r;
                }
                return LuaValue.varargsOf(LuaValue.FALSE, errorOf(args.arg1(), r.arg(2)));
            }
        });
        coroutine.rawset("wrap", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue f) {
                LuaThread thread = new LuaThread(globals, new Guarded(f.checkfunction()));
                return new VarArgFunction() {
                    @Override
                    public Varargs invoke(Varargs args) {
                        Varargs r = thread.resume(args);
                        if (r.arg1().toboolean()) {
                            return r.subargs(2);
                        }
                        LuaValue e = errorOf(thread, r.arg(2));
                        // Lua 5.1's auxwrap: a string error gets its caller's position (level 1), any other
                        // error object is raised as it is
                        throw e.type() == LuaValue.TSTRING ? new LuaError(e.tojstring(), 1) : new LuaError(e);
                    }
                };
            }
        });
    }

    /** The error object of the coroutine that failed, once; else LuaJ's text in Lua 5.1's words. */
    private static LuaValue errorOf(LuaValue co, LuaValue text) {
        if (co instanceof LuaThread t && t.state.function instanceof Guarded g && g.error != null) {
            LuaValue e = g.error;
            g.error = null;
            return e;
        }
        return text.type() == LuaValue.TSTRING ? LuaValue.valueOf(LuaErrors.luaText(LuaErrors.chomp(text.tojstring()))) : text;
    }

    /** A coroutine's body that keeps the object of the error it raises (Lua 5.1's text for a string). */
    private static final class Guarded extends VarArgFunction {
        private final LuaFunction body;
        LuaValue error;

        Guarded(LuaFunction body) {
            this.body = body;
        }

        @Override
        public Varargs invoke(Varargs args) {
            try {
                return body.invoke(args);
            } catch (LuaError e) {
                LuaValue obj = e.getMessageObject(); // a string error's text with LuaJ's position, unless raised at level 0
                error = obj == null ? LuaValue.NIL : obj.type() != LuaValue.TSTRING ? obj
                        : LuaValue.valueOf(LuaErrors.luaText(LuaErrors.chomp(obj.tojstring())));
                throw e;
            }
        }
    }
}
