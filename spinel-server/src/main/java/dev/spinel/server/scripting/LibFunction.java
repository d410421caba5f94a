package dev.spinel.server.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * A library function written in Java that checks its arguments as Lua 5.1's C API does
 * ({@code luaL_checklstring}, {@code luaL_checknumber}, {@code luaL_checkinteger}...) and names itself
 * in its argument errors as {@code luaL_argerror} does: by its field name when a script calls it, and
 * {@code '?'} when {@code pcall} calls it directly (see {@link #anonymous()}).
 *
 * <p>Stateless; thread-safety as the body's.
 */
final class LibFunction extends VarArgFunction {
    /** Lua 5.1's LUAI_MAXCSTACK: the most stack slots a C function may hold ({@code lua_checkstack}). */
    static final int MAX_C_STACK = 8000;

    interface Body {
        Varargs apply(LibFunction self, Varargs args);
    }

    final String fname;
    private final Body body;

    LibFunction(String fname, Body body) {
        this.fname = fname;
        this.body = body;
    }

    @Override
    public Varargs invoke(Varargs args) {
        return body.apply(this, args);
    }

    /** The same function as Lua 5.1 sees it when {@code pcall} calls it: no name ({@code '?'}). */
    LibFunction anonymous() {
        return new LibFunction("?", body);
    }

    /** {@code luaL_argerror}: "bad argument #n to 'name' (why)", the caller's position added by LuaJ. */
    LuaError argError(int narg, String why) {
        return new LuaError("bad argument #" + narg + " to '" + fname + "' (" + why + ")");
    }

    /** {@code luaL_typerror}: "expected, got" with Lua 5.1's {@code luaL_typename} ("no value" past the last argument). */
    LuaError typeError(Varargs a, int narg, String expected) {
        return argError(narg, expected + " expected, got " + typeName(a, narg));
    }

    static String typeName(Varargs a, int narg) {
        return narg > a.narg() ? "no value" : a.arg(narg).typename();
    }

    /** {@code luaL_checklstring}: a string, or a number converted as Lua 5.1 does ({@code %.14g}). */
    LuaString checkString(Varargs a, int narg) {
        LuaValue v = narg > a.narg() ? LuaValue.NONE : a.arg(narg);
        if (v.type() == LuaValue.TSTRING) {
            return v.checkstring();
        }
        if (v.type() == LuaValue.TNUMBER) {
            return LuaValue.valueOf(numberToString(v.todouble()));
        }
        throw typeError(a, narg, "string");
    }

    /** Lua 5.1's {@code lua_number2str}: {@code %.14g}. */
    static String numberToString(double d) {
        return CjsonEncoder.formatG(d, 14);
    }

    /** {@code luaL_checknumber}: a number, or a string that converts to one. */
    double checkNumber(Varargs a, int narg) {
        LuaValue v = narg > a.narg() ? LuaValue.NONE : a.arg(narg);
        LuaValue n = v.type() == LuaValue.TNUMBER || v.type() == LuaValue.TSTRING ? v.tonumber() : LuaValue.NIL;
        if (n.isnil()) {
            throw typeError(a, narg, "number");
        }
        return n.todouble();
    }

    /** {@code luaL_checkinteger}: {@link #checkNumber} truncated as C's cast to a 64-bit integer (x86-64). */
    long checkInteger(Varargs a, int narg) {
        return cLong(checkNumber(a, narg));
    }

    /** {@code luaL_optinteger}: {@code def} for nil or no value. */
    long optInteger(Varargs a, int narg, long def) {
        return a.arg(narg).isnil() ? def : checkInteger(a, narg);
    }

    /** C's {@code (int64_t) d} on x86-64: truncation, and INT64_MIN for NaN and values out of range. */
    static long cLong(double d) {
        if (Double.isNaN(d) || d >= 0x1p63 || d < -0x1p63) {
            return Long.MIN_VALUE;
        }
        return (long) d;
    }

    /** {@code luaL_checkstack}: fails as Lua 5.1 does once {@code top + space} passes LUAI_MAXCSTACK. */
    static void checkStack(long top, int space, String message) {
        if (top + space > MAX_C_STACK) {
            throw new LuaError("stack overflow (" + message + ")");
        }
    }

    /**
     * An error raised inside the C function itself ({@code luaG_runerror} from {@code lua_settable}...):
     * Lua 5.1 adds no position to its text. LuaJ still records the caller's line (the script-failure reply
     * names it as Redis's does), but the message value ({@code pcall}'s, the reply's) is the bare text.
     */
    static LuaError bareError(String message) {
        return new LuaError(message) {
            @Override
            public LuaValue getMessageObject() {
                return LuaValue.valueOf(message);
            }
        };
    }
}
