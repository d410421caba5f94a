package dev.spinel.server.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code cmsgpack} library of Redis 7.0's Lua (lua-cmsgpack 0.4.0): {@code pack}, {@code unpack},
 * {@code unpack_one} and {@code unpack_limit}, with its MessagePack bytes, error texts and limits.
 *
 * <p>Packing: integral numbers (exactly representable as a 64-bit integer) as the smallest MessagePack
 * integer, other numbers as a float32 when the conversion is exact, else a float64; strings as
 * fixstr/str8/str16/str32; a table whose keys are exactly 1..n (n ≥ 0) as an array, any other as a
 * map; tables nested 16 deep, functions, nil and userdata as nil. Unpacking knows lua-cmsgpack's types
 * only (no bin or ext): others are "Bad data format in input.", a truncated input "Missing bytes in input.".
 * Lua 5.1's stack limits (LUAI_MAXCSTACK) are counted as the C code uses the stack, so the same inputs
 * fail with the same "stack overflow (...)" texts.
 *
 * <p>Stateless.
 */
final class CmsgpackLib {
    /** LUACMSGPACK_MAX_NESTING: a table this deep is packed as nil. */
    static final int MAX_NESTING = 16;
    private static final String TOO_MANY_VALUES =
        "too many return values at once; use unpack_one or unpack_limit instead.";
    /** x86-64's default NaN (what 0/0 gives in C), for LuaJ's positive canonical NaN. */
    private static final long C_NAN = 0xfff8000000000000L;

    private CmsgpackLib() {
    }

    static LuaTable create() {
        LuaTable t = new LuaTable();
        t.rawset("pack", new LibFunction("pack", CmsgpackLib::pack));
        t.rawset("unpack", new LibFunction("unpack", (f, a) -> unpack(f, a, a.narg(), 0, 0)));
        t.rawset("unpack_one", new LibFunction("unpack_one", (f, a) -> {
            long offset = f.optInteger(a, 2, 0);
            return unpack(f, a, 1, 1, offset);
        }));
        t.rawset("unpack_limit", new LibFunction("unpack_limit", (f, a) -> {
            long limit = f.checkInteger(a, 2);
            long offset = f.optInteger(a, 3, 0);
            return unpack(f, a, 1, limit, offset);
        }));
        t.rawset("_NAME", "cmsgpack");
        t.rawset("_VERSION", "lua-cmsgpack 0.4.0");
        t.rawset("_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo");
        t.rawset("_DESCRIPTION", "MessagePack C implementation for Lua");
        return t;
    }

    /** The bits of a double as C on x86-64 holds them: LuaJ's 0/0 (positive NaN) is C's negative one. */
    static long doubleBits(double d) {
        long bits = Double.doubleToRawLongBits(d);
        return bits == 0x7ff8000000000000L ? C_NAN : bits;
    }

    // ------------------------------------------------------------------------------------------------
    // Packing

    private static Varargs pack(LibFunction f, Varargs a) {
        int nargs = a.narg();
        if (nargs == 0) {
            throw f.argError(0, "MessagePack pack needs input.");
        }
        if (nargs > LibFunction.MAX_C_STACK || 2L * nargs > LibFunction.MAX_C_STACK) {
            throw f.argError(0, "Too many arguments for MessagePack pack.");
        }
        Encoder e = new Encoder();
        long top = nargs;
        for (int i = 1; i <= nargs; i++) {
            LibFunction.checkStack(top, 1, "in function mp_check");
            e.value(a.arg(i), 0, top + 1);
            top++; // the packed string of this argument, concatenated at the end
        }
        return LuaString.valueUsing(e.out.toByteArray());
    }

    private static final class Encoder {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();

        /** Appends {@code v}; {@code top} is Lua's stack height with {@code v} on it. */
        void value(LuaValue v, int level, long top) {
            switch (v.type()) {
                case LuaValue.TSTRING -> bytes(v.checkstring());
                case LuaValue.TBOOLEAN -> out.write(v.toboolean() ? 0xc3 : 0xc2);
                case LuaValue.TNUMBER -> number(v.todouble());
                case LuaValue.TTABLE -> {
                    if (level == MAX_NESTING) {
                        out.write(0xc0);
                    } else {
                        table((LuaTable) v, level, top);
                    }
                }
                default -> out.write(0xc0);
            }
        }

        private void bytes(LuaString s) {
            int len = s.m_length;
            if (len < 32) {
                out.write(0xa0 | len);
            } else if (len <= 0xff) {
                out.write(0xd9);
                out.write(len);
            } else if (len <= 0xffff) {
                out.write(0xda);
                be(len, 2);
            } else {
                out.write(0xdb);
                be(len, 4);
            }
            out.write(s.m_bytes, s.m_offset, len);
        }

        private void be(long v, int n) {
            for (int i = n - 1; i >= 0; i--) {
                out.write((int) (v >>> (8 * i)) & 0xff);
            }
        }

        private void number(double d) {
            long n = LibFunction.cLong(d);
            if (!Double.isInfinite(d) && (double) n == d) {
                integer(n);
                return;
            }
            float f = (float) d;
            if ((double) f == d) {
                out.write(0xca);
                be(Float.floatToRawIntBits(f) & 0xffffffffL, 4);
            } else {
                out.write(0xcb);
                be(doubleBits(d), 8);
            }
        }

        private void integer(long n) {
            if (n >= 0) {
                if (n <= 127) {
                    out.write((int) n);
                } else if (n <= 0xff) {
                    out.write(0xcc);
                    be(n, 1);
                } else if (n <= 0xffff) {
                    out.write(0xcd);
                    be(n, 2);
                } else if (n <= 0xffffffffL) {
                    out.write(0xce);
                    be(n, 4);
                } else {
                    out.write(0xcf);
                    be(n, 8);
                }
            } else if (n >= -32) {
                out.write((int) n & 0xff);
            } else if (n >= -128) {
                out.write(0xd0);
                be(n, 1);
            } else if (n >= -32768) {
                out.write(0xd1);
                be(n, 2);
            } else if (n >= -2147483648L) {
                out.write(0xd2);
                be(n, 4);
            } else {
                out.write(0xd3);
                be(n, 8);
            }
        }

        private void header(long n, int fix, int code16) {
            if (n <= 15) {
                out.write(fix | (int) n);
            } else if (n <= 65535) {
                out.write(code16);
                be(n, 2);
            } else {
                out.write(code16 + 1);
                be(n, 4);
            }
        }

        private void table(LuaTable t, int level, long top) {
            int length = arrayLength(t, top);
            if (length >= 0) {
                LibFunction.checkStack(top, 1, "in function mp_encode_lua_table_as_array");
                header(length, 0x90, 0xdc);
                for (int j = 1; j <= length; j++) {
                    value(t.get(j), level + 1, top + 1);
                }
                return;
            }
            LibFunction.checkStack(top, 3, "in function mp_encode_lua_table_as_map");
            long count = 0;
            for (LuaValue k = t.next(LuaValue.NIL).arg1(); !k.isnil(); k = t.next(k).arg1()) {
                count++;
            }
            header(count, 0x80, 0xde);
            LuaValue k = LuaValue.NIL;
            while (true) {
                Varargs n = t.next(k);
                k = n.arg1();
                if (k.isnil()) {
                    break;
                }
                value(k, level + 1, top + 3);
                value(n.arg(2), level + 1, top + 2);
            }
        }

        /**
         * lua-cmsgpack's table_is_an_array: every key a number that is an int ≥ 1 and the largest equal to
         * the count (the keys are then exactly 1..n; an empty table is an empty array). The length, or -1.
         */
        private static int arrayLength(LuaTable t, long top) {
            LibFunction.checkStack(top, 2, "in function table_is_an_array");
            int count = 0;
            int max = 0;
            LuaValue k = LuaValue.NIL;
            while (true) {
                k = t.next(k).arg1();
                if (k.isnil()) {
                    break;
                }
                if (k.type() != LuaValue.TNUMBER) {
                    return -1;
                }
                double n = k.todouble();
                if (n <= 0 || n >= 0x1p31 || (int) n != n) {
                    return -1;
                }
                max = Math.max(max, (int) n);
                count++;
            }
            return max == count ? count : -1;
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Unpacking

    /** lua-cmsgpack's mp_unpack_full: {@code top} is Lua's stack height when decoding starts. */
    private static Varargs unpack(LibFunction f, Varargs a, int top, long limit, long offset) {
        LuaString s = f.checkString(a, 1);
        int len = s.m_length;
        boolean all = limit == 0 && offset == 0;
        if (offset < 0 || limit < 0) {
            throw new LuaError("Invalid request to unpack with offset of " + (int) offset + " and limit of " + len + ".");
        }
        if (offset > len) {
            throw new LuaError("Start offset " + (int) offset + " greater than input length " + len + ".");
        }
        if (all) {
            limit = Integer.MAX_VALUE;
        }
        Decoder d = new Decoder(s.m_bytes, s.m_offset + (int) offset, s.m_offset + len, top);
        List<LuaValue> values = new ArrayList<>();
        for (int cnt = 0; d.p < d.end && cnt < limit; cnt++) {
            values.add(d.value());
        }
        if (!all) {
            LibFunction.checkStack(d.top, 1, "in function mp_unpack_full");
            values.addFirst(LuaValue.valueOf(d.p == d.end ? -1 : d.p - s.m_offset));
        }
        return LuaValue.varargsOf(values.toArray(new LuaValue[0]));
    }

    /** A table being filled: its elements left, the next array index, a map's key waiting for its value. */
    private static final class Frame {
        final LuaTable table = new LuaTable();
        final boolean map;
        long left;
        int index = 1;
        LuaValue key;

        Frame(boolean map, long left) {
            this.map = map;
            this.left = left;
        }
    }

    /**
     * mp_decode_to_lua_type without recursion (nesting is bounded only by the Lua stack, about 4000 levels).
     * {@code top} follows the Lua stack as the C code fills it: the value being decoded, a table and the
     * array index or map key under it at each level.
     */
    private static final class Decoder {
        final byte[] b;
        int p;
        final int end;
        long top;

        Decoder(byte[] b, int p, int end, long top) {
            this.b = b;
            this.p = p;
            this.end = end;
            this.top = top;
        }

        private void need(long n) {
            if (end - p < n) {
                throw new LuaError("Missing bytes in input.");
            }
        }

        private int u8(int at) {
            return b[p + at] & 0xff;
        }

        private long be(int at, int n) {
            long v = 0;
            for (int i = 0; i < n; i++) {
                v = (v << 8) | u8(at + i);
            }
            return v;
        }

        private LuaValue string(int header, long n) {
            need(header + n);
            LuaValue v = LuaString.valueOf(b, p + header, (int) n);
            p += header + (int) n;
            return v;
        }

        /** Decodes one value; Lua's stack grows by one (the value). */
        LuaValue value() {
            ArrayDeque<Frame> frames = new ArrayDeque<>();
            while (true) {
                need(1);
                LibFunction.checkStack(top, 1, TOO_MANY_VALUES);
                int c = u8(0);
                LuaValue v = null;
                Frame open = null;
                switch (c) {
                    case 0xcc -> { need(2); v = LuaValue.valueOf(u8(1)); p += 2; }
                    case 0xd0 -> { need(2); v = LuaValue.valueOf((byte) u8(1)); p += 2; }
                    case 0xcd -> { need(3); v = LuaValue.valueOf((int) be(1, 2)); p += 3; }
                    case 0xd1 -> { need(3); v = LuaValue.valueOf((short) be(1, 2)); p += 3; }
                    case 0xce -> { need(5); v = LuaValue.valueOf((double) be(1, 4)); p += 5; }
                    case 0xd2 -> { need(5); v = LuaValue.valueOf((int) be(1, 4)); p += 5; }
                    case 0xcf, 0xd3 -> { need(9); v = LuaValue.valueOf((double) be(1, 8)); p += 9; }
                    case 0xc0 -> { v = LuaValue.NIL; p++; }
                    case 0xc3 -> { v = LuaValue.TRUE; p++; }
                    case 0xc2 -> { v = LuaValue.FALSE; p++; }
                    case 0xca -> {
                        need(5);
                        v = LuaValue.valueOf((double) Float.intBitsToFloat((int) be(1, 4)));
                        p += 5;
                    }
                    case 0xcb -> { need(9); v = LuaValue.valueOf(Double.longBitsToDouble(be(1, 8))); p += 9; }
                    case 0xd9 -> { need(2); v = string(2, u8(1)); }
                    case 0xda -> { need(3); v = string(3, be(1, 2)); }
                    case 0xdb -> { need(5); long n = be(1, 4); p += 5; v = string(0, n); }
                    case 0xdc -> { need(3); long n = be(1, 2); p += 3; open = new Frame(false, n); }
                    case 0xdd -> { need(5); long n = be(1, 4); p += 5; open = new Frame(false, n); }
                    case 0xde -> { need(3); long n = be(1, 2); p += 3; open = new Frame(true, n); }
                    case 0xdf -> { need(5); long n = be(1, 4); p += 5; open = new Frame(true, n); }
                    default -> {
                        if ((c & 0x80) == 0) {
                            v = LuaValue.valueOf(c);
                            p++;
                        } else if ((c & 0xe0) == 0xe0) {
                            v = LuaValue.valueOf((byte) c);
                            p++;
                        } else if ((c & 0xe0) == 0xa0) {
                            v = string(1, c & 0x1f);
                        } else if ((c & 0xf0) == 0x90) {
                            p++;
                            open = new Frame(false, c & 0xf);
                        } else if ((c & 0xf0) == 0x80) {
                            p++;
                            open = new Frame(true, c & 0xf);
                        } else {
                            throw new LuaError("Bad data format in input.");
                        }
                    }
                }
                top++; // the value, or the new table
                if (open != null) {
                    if (!open.map) {
                        LibFunction.checkStack(top, 1, "in function mp_decode_to_lua_array");
                    }
                    frames.push(open);
                }
                // Hand finished values to the tables being filled, closing the tables that are full.
                while (true) {
                    Frame fr = frames.peek();
                    if (v != null) {
                        if (fr == null) {
                            return v;
                        }
                        if (fr.map && fr.key == null) {
                            fr.key = v;
                            break; // its value comes next
                        }
                        set(fr, v);
                        top -= 2;
                        v = null;
                    }
                    if (fr.left == 0) {
                        frames.pop();
                        v = fr.table;
                        continue;
                    }
                    fr.left--;
                    if (!fr.map) {
                        top++; // the index pushed before each element
                    }
                    break;
                }
            }
        }

        private static void set(Frame fr, LuaValue v) {
            if (fr.map) {
                LuaValue k = fr.key;
                fr.key = null;
                if (k.isnil()) {
                    throw LibFunction.bareError("table index is nil");
                }
                if (k.type() == LuaValue.TNUMBER && Double.isNaN(k.todouble())) {
                    throw LibFunction.bareError("table index is NaN");
                }
                fr.table.rawset(k, v);
            } else {
                fr.table.rawset(fr.index++, v);
            }
        }
    }
}
