package dev.spinel.server.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

/**
 * Lua 5.1's {@code unpack}, {@code string.byte} and {@code string.rep}, in place of LuaJ's, so that a script
 * cannot make one library call do unbounded work: Lua 5.1 refuses to return more than its C stack holds
 * (LUAI_MAXCSTACK, 8000 slots, arguments included) with Redis's texts, where LuaJ built {@code unpack({}, 1,
 * 1e8)} until the heap ran out (30 s in one call, which SCRIPT KILL cannot stop). {@code string.rep} converts
 * its count as Lua 5.1 does (a C cast to int: zero or negative gives "", where LuaJ failed with a VM error)
 * and fails with "not enough memory", as Lua does when an allocation fails, for a result larger than a Java
 * array can be (LuaJ's size arithmetic overflowed and returned a wrong string).
 *
 * <p>Stateless and thread-safe.
 */
final class Lua51Limits {
    private Lua51Limits() {
    }

    /** Installs the three functions into {@code globals} (and {@code table.unpack}, which shares LuaJ's). */
    static void install(LuaValue globals) {
        LibFunction unpack = new LibFunction("unpack", Lua51Limits::unpack);
        globals.rawset("unpack", unpack);
        globals.rawget("table").rawset("unpack", unpack);
        LuaValue string = globals.rawget("string");
        string.rawset("byte", new LibFunction("byte", Lua51Limits::stringByte));
        string.rawset("rep", new LibFunction("rep", Lua51Limits::stringRep));
    }

    /** {@code luaB_unpack}: t[i..e], i default 1, e default #t, both C ints. */
    private static Varargs unpack(LibFunction self, Varargs a) {
        if (a.arg1().type() != LuaValue.TTABLE) {
            throw self.typeError(a, 1, "table");
        }
        LuaTable t = (LuaTable) a.arg1();
        int i = (int) self.optInteger(a, 2, 1);
        int e = a.arg(3).isnil() ? t.rawlen() : (int) self.checkInteger(a, 3);
        if (i > e) {
            return LuaValue.NONE;
        }
        int n = e - i + 1; // wraps as C's int arithmetic does: n <= 0 means overflow
        if (n <= 0 || (long) a.narg() + n > LibFunction.MAX_C_STACK) {
            throw new LuaError("too many results to unpack");
        }
        LuaValue[] values = new LuaValue[n];
        for (int k = 0; k < n; k++) {
            values[k] = t.rawget(i + k);
        }
        return LuaValue.varargsOf(values);
    }

    /** {@code str_byte}: the bytes of s[i..j] (i default 1, j default i; negative counts from the end). */
    private static Varargs stringByte(LibFunction self, Varargs a) {
        LuaString s = self.checkString(a, 1);
        long l = s.length();
        long posi = relative(self.optInteger(a, 2, 1), l);
        long pose = relative(self.optInteger(a, 3, posi), l);
        if (posi <= 0) {
            posi = 1;
        }
        if (pose > l) {
            pose = l;
        }
        if (posi > pose) {
            return LuaValue.NONE;
        }
        long n = pose - posi + 1;
        LibFunction.checkStack(a.narg(), (int) Math.min(n, Integer.MAX_VALUE), "string slice too long");
        LuaValue[] values = new LuaValue[(int) n];
        for (int k = 0; k < n; k++) {
            values[k] = LuaValue.valueOf(s.luaByte((int) (posi - 1 + k)));
        }
        return LuaValue.varargsOf(values);
    }

    /** {@code posrelat}: a negative position counts from the end of a string of length {@code len}. */
    private static long relative(long pos, long len) {
        return pos >= 0 ? pos : len + pos + 1;
    }

    /** {@code str_rep}: s repeated n times, n a C int; "" for n <= 0. */
    private static Varargs stringRep(LibFunction self, Varargs a) {
        LuaString s = self.checkString(a, 1);
        int n = (int) self.checkInteger(a, 2);
        int len = s.length();
        if (n <= 0 || len == 0) {
            return LuaValue.EMPTYSTRING;
        }
        long total = (long) len * n;
        if (total > Integer.MAX_VALUE - 8) {
            // Lua raises its memory error when an allocation fails; a Java array cannot hold this at all.
            throw new OutOfMemoryError("string.rep result of " + total + " bytes");
        }
        byte[] out = new byte[(int) total];
        for (int off = 0; off < out.length; off += len) {
            s.copyInto(0, out, off, len);
        }
        return LuaString.valueUsing(out);
    }
}
