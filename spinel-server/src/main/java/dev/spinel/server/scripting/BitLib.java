package dev.spinel.server.scripting;

import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * The {@code bit} library of Redis's Lua (LuaBitOp): 32-bit operations whose results are signed
 * 32-bit numbers. Arguments are taken modulo 2^32 after rounding, as LuaBitOp does for numbers below
 * 2^51.
 *
 * <p>Stateless.
 */
final class BitLib {
    private BitLib() {
    }

    static LuaTable create() {
        LuaTable t = new LuaTable();
        t.rawset("tobit", fn(a -> bits(a, 1)));
        t.rawset("bnot", fn(a -> ~bits(a, 1)));
        t.rawset("band", fn(a -> {
            int r = bits(a, 1);
            for (int i = 2; i <= a.narg(); i++) {
                r &= bits(a, i);
            }
            return r;
        }));
        t.rawset("bor", fn(a -> {
            int r = bits(a, 1);
            for (int i = 2; i <= a.narg(); i++) {
                r |= bits(a, i);
            }
            return r;
        }));
        t.rawset("bxor", fn(a -> {
            int r = bits(a, 1);
            for (int i = 2; i <= a.narg(); i++) {
                r ^= bits(a, i);
            }
            return r;
        }));
        t.rawset("lshift", fn(a -> bits(a, 1) << (bits(a, 2) & 31)));
        t.rawset("rshift", fn(a -> bits(a, 1) >>> (bits(a, 2) & 31)));
        t.rawset("arshift", fn(a -> bits(a, 1) >> (bits(a, 2) & 31)));
        t.rawset("rol", fn(a -> Integer.rotateLeft(bits(a, 1), bits(a, 2) & 31)));
        t.rawset("ror", fn(a -> Integer.rotateRight(bits(a, 1), bits(a, 2) & 31)));
        t.rawset("bswap", fn(a -> Integer.reverseBytes(bits(a, 1))));
        t.rawset("tohex", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                int x = bits(a, 1);
                int n = a.isnoneornil(2) ? 8 : bits(a, 2);
                boolean upper = n < 0;
                n = Math.min(Math.abs(n), 8);
                String hex = String.format(upper ? "%08X" : "%08x", x);
                return LuaValue.valueOf(hex.substring(8 - n));
            }
        });
        return t;
    }

    private static int bits(Varargs a, int i) {
        double d = a.checkdouble(i);
        return (int) (long) Math.rint(d);
    }

    private interface IntOp {
        int apply(Varargs args);
    }

    private static VarArgFunction fn(IntOp op) {
        return new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return LuaValue.valueOf(op.apply(args));
            }
        };
    }
}
