package dev.spinel.server.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaUserdata;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

import java.io.ByteArrayOutputStream;
import java.util.function.Supplier;

/**
 * The {@code cjson} library of Redis 7.0's Lua (lua-cjson 2.1.0): {@code encode}, {@code decode},
 * {@code null} and the configuration functions, with lua-cjson's output bytes and error texts.
 * JSON text is handled as bytes (Lua strings), never as Java strings.
 *
 * <p>Thread-safety: none; the configuration is per instance, like lua-cjson's per Lua state.
 */
final class CjsonLib {
    /** lua-cjson's {@code null}: a NULL lightuserdata, printed by Lua 5.1 as {@code userdata: (nil)}. */
    static final LuaUserdata NULL = new LuaUserdata(new Object() {
        @Override
        public String toString() {
            return "userdata: (nil)";
        }
    });

    int encodeSparseConvert = 0;
    int encodeSparseRatio = 2;
    int encodeSparseSafe = 10;
    int encodeMaxDepth = 1000;
    int decodeMaxDepth = 1000;
    int encodeInvalidNumbers = 0; // 0 off, 1 on, 2 "null"
    int decodeInvalidNumbers = 1;
    int encodeKeepBuffer = 1;
    int encodeNumberPrecision = 14;

    /** Back to lua-cjson's defaults (Redis's SCRIPT FLUSH makes a new Lua state). */
    void reset() {
        CjsonLib d = new CjsonLib();
        encodeSparseConvert = d.encodeSparseConvert;
        encodeSparseRatio = d.encodeSparseRatio;
        encodeSparseSafe = d.encodeSparseSafe;
        encodeMaxDepth = d.encodeMaxDepth;
        decodeMaxDepth = d.decodeMaxDepth;
        encodeInvalidNumbers = d.encodeInvalidNumbers;
        decodeInvalidNumbers = d.decodeInvalidNumbers;
        encodeKeepBuffer = d.encodeKeepBuffer;
        encodeNumberPrecision = d.encodeNumberPrecision;
    }

    static LuaTable create() {
        return new CjsonLib().table();
    }

    /** The module table, whose functions use (and configure) this instance. */
    LuaTable table() {
        CjsonLib c = this;
        LuaTable t = new LuaTable();
        t.rawset("encode", fn(a -> {
            if (a.narg() != 1) {
                throw new LuaError("bad argument #1 to 'encode' (expected 1 argument)");
            }
            LuaValue v = a.arg1();
            return c.encodeMaxDepth <= DEFAULT_DEPTH ? CjsonEncoder.encode(c, v) : deep(() -> CjsonEncoder.encode(c, v));
        }));
        t.rawset("decode", fn(a -> {
            if (a.narg() != 1) {
                throw new LuaError("bad argument #1 to 'decode' (expected 1 argument)");
            }
            LuaValue s = a.arg1();
            if (!s.isstring()) {
                throw new LuaError("bad argument #1 to 'decode' (string expected, got " + typeName(s) + ")");
            }
            CjsonDecoder decoder = new CjsonDecoder(c, s.checkstring());
            return c.decodeMaxDepth <= DEFAULT_DEPTH ? decoder.decode() : deep(decoder::decode);
        }));
        t.rawset("encode_sparse_array", fn(a -> {
            config(a, 3, "encode_sparse_array");
            c.encodeSparseConvert = enumOption(a, 1, c.encodeSparseConvert, BOOL_OPTIONS, "encode_sparse_array");
            c.encodeSparseRatio = intOption(a, 2, c.encodeSparseRatio, 0, Integer.MAX_VALUE, "encode_sparse_array");
            c.encodeSparseSafe = intOption(a, 3, c.encodeSparseSafe, 0, Integer.MAX_VALUE, "encode_sparse_array");
            return LuaValue.varargsOf(new LuaValue[] {enumValue(c.encodeSparseConvert, BOOL_OPTIONS),
                LuaValue.valueOf(c.encodeSparseRatio), LuaValue.valueOf(c.encodeSparseSafe)});
        }));
        t.rawset("encode_max_depth", fn(a -> {
            config(a, 1, "encode_max_depth");
            c.encodeMaxDepth = intOption(a, 1, c.encodeMaxDepth, 1, Integer.MAX_VALUE, "encode_max_depth");
            return LuaValue.valueOf(c.encodeMaxDepth);
        }));
        t.rawset("decode_max_depth", fn(a -> {
            config(a, 1, "decode_max_depth");
            c.decodeMaxDepth = intOption(a, 1, c.decodeMaxDepth, 1, Integer.MAX_VALUE, "decode_max_depth");
            return LuaValue.valueOf(c.decodeMaxDepth);
        }));
        t.rawset("encode_number_precision", fn(a -> {
            config(a, 1, "encode_number_precision");
            c.encodeNumberPrecision = intOption(a, 1, c.encodeNumberPrecision, 1, 14, "encode_number_precision");
            return LuaValue.valueOf(c.encodeNumberPrecision);
        }));
        t.rawset("encode_keep_buffer", fn(a -> {
            config(a, 1, "encode_keep_buffer");
            c.encodeKeepBuffer = enumOption(a, 1, c.encodeKeepBuffer, BOOL_OPTIONS, "encode_keep_buffer");
            return enumValue(c.encodeKeepBuffer, BOOL_OPTIONS);
        }));
        t.rawset("encode_invalid_numbers", fn(a -> {
            config(a, 1, "encode_invalid_numbers");
            c.encodeInvalidNumbers = enumOption(a, 1, c.encodeInvalidNumbers, NUMBER_OPTIONS, "encode_invalid_numbers");
            return enumValue(c.encodeInvalidNumbers, NUMBER_OPTIONS);
        }));
        t.rawset("decode_invalid_numbers", fn(a -> {
            config(a, 1, "decode_invalid_numbers");
            c.decodeInvalidNumbers = enumOption(a, 1, c.decodeInvalidNumbers, BOOL_OPTIONS, "decode_invalid_numbers");
            return enumValue(c.decodeInvalidNumbers, BOOL_OPTIONS);
        }));
        t.rawset("new", fn(a -> create()));
        t.rawset("null", NULL);
        t.rawset("_NAME", "cjson");
        t.rawset("_VERSION", "2.1.0");
        return t;
    }

    private static final int DEFAULT_DEPTH = 1000;
    /** Enough for lua-cjson's deepest nesting (8000 Lua stack slots) in the recursive encoder and decoder. */
    private static final long DEEP_STACK_BYTES = 64L << 20;

    /**
     * Runs an encode or decode whose max depth was raised past the default on a thread with a large
     * stack (the caller's thread may not hold 8000 levels of recursion), waiting for it: the script
     * stays single-threaded in effect. A stack overflow there still ends as lua-cjson's nesting error.
     */
    private static LuaValue deep(Supplier<LuaValue> work) {
        LuaValue[] result = new LuaValue[1];
        Throwable[] failure = new Throwable[1];
        Thread t = new Thread(null, () -> {
            try {
                result[0] = work.get();
            } catch (Throwable e) {
                failure[0] = e;
            }
        }, "cjson-deep", DEEP_STACK_BYTES);
        t.start();
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure[0] instanceof RuntimeException e) {
            throw e;
        }
        if (failure[0] instanceof Error e) {
            throw e;
        }
        return result[0];
    }

    private static final String[] BOOL_OPTIONS = {"off", "on"};
    private static final String[] NUMBER_OPTIONS = {"off", "on", "null"};

    static String typeName(LuaValue v) {
        return v.isnil() ? "no value" : v.typename();
    }

    private static void config(Varargs a, int nargs, String name) {
        if (a.narg() > nargs) {
            throw badArgument(nargs + 1, name, "found too many arguments");
        }
    }

    private static LuaError badArgument(int i, String name, String why) {
        return new LuaError("bad argument #" + i + " to '" + name + "' (" + why + ")");
    }

    /** lua-cjson's json_enum_option: a boolean, or one of the option names. */
    private static int enumOption(Varargs a, int i, int setting, String[] options, String name) {
        LuaValue v = a.arg(i);
        if (v.isnil()) {
            return setting;
        }
        if (v.isboolean()) {
            return v.toboolean() ? 1 : 0;
        }
        if (!v.isstring()) {
            throw badArgument(i, name, "string expected, got " + typeName(v));
        }
        String s = v.tojstring();
        for (int k = 0; k < options.length; k++) {
            if (options[k].equals(s)) {
                return k;
            }
        }
        throw badArgument(i, name, "invalid option '" + s + "'");
    }

    private static LuaValue enumValue(int setting, String[] options) {
        if (setting == 0 || setting == 1) {
            return LuaValue.valueOf(setting == 1);
        }
        return LuaValue.valueOf(options[setting]);
    }

    /** lua-cjson's json_integer_option (its range error names argument 1 whatever the position). */
    private static int intOption(Varargs a, int i, int setting, int min, int max, String name) {
        LuaValue v = a.arg(i);
        if (v.isnil()) {
            return setting;
        }
        LuaValue n = v.tonumber();
        if (n.isnil()) {
            throw badArgument(i, name, "number expected, got " + typeName(v));
        }
        long value = (long) n.todouble();
        if (value < min || value > max) {
            throw badArgument(1, name, "expected integer between " + min + " and " + max);
        }
        return (int) value;
    }

    private interface Body {
        Varargs apply(Varargs args);
    }

    private static VarArgFunction fn(Body body) {
        return new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return body.apply(args);
            }
        };
    }

    /** Bytes of a Lua string, without copying when the string is the whole array. */
    static byte[] bytes(LuaString s) {
        if (s.m_offset == 0 && s.m_length == s.m_bytes.length) {
            return s.m_bytes;
        }
        byte[] b = new byte[s.m_length];
        s.copyInto(0, b, 0, b.length);
        return b;
    }

    static LuaString string(ByteArrayOutputStream out) {
        return LuaString.valueUsing(out.toByteArray());
    }
}
