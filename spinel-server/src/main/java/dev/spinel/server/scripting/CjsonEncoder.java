package dev.spinel.server.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * {@code cjson.encode}: lua-cjson 2.1.0's output. A table whose keys are all integers ≥ 1 is an array
 * up to its largest key (holes as {@code null}), unless excessively sparse; any other table is an
 * object (numeric keys written as strings). Numbers as C's {@code %.14g}, strings escaped with lua-cjson's
 * table ({@code /} as {@code \/}, control characters and DEL as backslash-u escapes, bytes ≥ 0x80 raw).
 *
 * <p>Stateless (the configuration comes from the {@link CjsonLib} instance).
 */
final class CjsonEncoder {
    /** Lua 5.1's LUAI_MAXCSTACK: the most stack slots a C function may use. */
    static final int MAX_C_STACK = 8000;
    private static final byte[][] ESCAPES = new byte[256][];

    static {
        for (int c = 0; c < 32; c++) {
            ESCAPES[c] = String.format("\\u%04x", c).getBytes(StandardCharsets.US_ASCII);
        }
        ESCAPES['\b'] = "\\b".getBytes(StandardCharsets.US_ASCII);
        ESCAPES['\t'] = "\\t".getBytes(StandardCharsets.US_ASCII);
        ESCAPES['\n'] = "\\n".getBytes(StandardCharsets.US_ASCII);
        ESCAPES['\f'] = "\\f".getBytes(StandardCharsets.US_ASCII);
        ESCAPES['\r'] = "\\r".getBytes(StandardCharsets.US_ASCII);
        ESCAPES['"'] = "\\\"".getBytes(StandardCharsets.US_ASCII);
        ESCAPES['\\'] = "\\\\".getBytes(StandardCharsets.US_ASCII);
        ESCAPES['/'] = "\\/".getBytes(StandardCharsets.US_ASCII);
        ESCAPES[127] = "\\u007f".getBytes(StandardCharsets.US_ASCII);
    }

    private final CjsonLib cfg;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private int deepest;

    private CjsonEncoder(CjsonLib cfg) {
        this.cfg = cfg;
    }

    static LuaString encode(CjsonLib cfg, LuaValue v) {
        CjsonEncoder e = new CjsonEncoder(cfg);
        try {
            e.value(v, 0, 1);
        } catch (StackOverflowError overflow) {
            throw new LuaError("Cannot serialise, excessive nesting (" + e.deepest + ")");
        }
        return CjsonLib.string(e.out);
    }

    private static LuaError exception(LuaValue v, String reason) {
        return new LuaError("Cannot serialise " + v.typename() + ": " + reason);
    }

    /**
     * Appends {@code v}. {@code stack} counts the Lua stack slots lua-cjson would use at this point (the
     * argument, then one per array level, two per object level): past Lua 5.1's LUAI_MAXCSTACK (8000)
     * its lua_checkstack fails and Redis reports excessive nesting below the configured depth.
     */
    private void value(LuaValue v, int depth, int stack) {
        switch (v.type()) {
            case LuaValue.TSTRING -> string(v.checkstring());
            case LuaValue.TNUMBER -> number(v);
            case LuaValue.TBOOLEAN -> ascii(v.toboolean() ? "true" : "false");
            case LuaValue.TNIL -> ascii("null");
            case LuaValue.TTABLE -> {
                depth++;
                deepest = depth;
                if (depth > cfg.encodeMaxDepth || stack + 3 > MAX_C_STACK) {
                    throw new LuaError("Cannot serialise, excessive nesting (" + depth + ")");
                }
                LuaTable t = (LuaTable) v;
                int len = arrayLength(t);
                if (len > 0) {
                    array(t, len, depth, stack);
                } else {
                    object(t, depth, stack);
                }
            }
            default -> {
                if (v == CjsonLib.NULL) {
                    ascii("null");
                } else {
                    throw exception(v, "type not supported");
                }
            }
        }
    }

    /** lua-cjson's lua_array_length: the largest key if all keys are integers ≥ 1, -1 for an object. */
    private int arrayLength(LuaTable t) {
        int max = 0; // an int, assigned with C's cast, as lua-cjson's (2^31 and above: INT_MIN, an object)
        int items = 0;
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs n = t.next(k);
            k = n.arg1();
            if (k.isnil()) {
                break;
            }
            if (k.type() == LuaValue.TNUMBER) {
                double d = k.todouble();
                if (d != 0 && Math.floor(d) == d && d >= 1) {
                    if (d > max) {
                        max = d >= 0x1p31 ? Integer.MIN_VALUE : (int) d;
                    }
                    items++;
                    continue;
                }
            }
            return -1;
        }
        if (cfg.encodeSparseRatio > 0 && max > (long) items * cfg.encodeSparseRatio && max > cfg.encodeSparseSafe) {
            if (cfg.encodeSparseConvert == 0) {
                throw exception(t, "excessively sparse array");
            }
            return -1;
        }
        return max;
    }

    private void array(LuaTable t, int len, int depth, int stack) {
        out.write('[');
        for (int i = 1; i <= len; i++) {
            if (i > 1) {
                out.write(',');
            }
            value(t.rawget(i), depth, stack + 1);
        }
        out.write(']');
    }

    private void object(LuaTable t, int depth, int stack) {
        out.write('{');
        boolean first = true;
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs n = t.next(k);
            k = n.arg1();
            if (k.isnil()) {
                break;
            }
            if (!first) {
                out.write(',');
            }
            first = false;
            if (k.type() == LuaValue.TNUMBER) {
                out.write('"');
                number(k);
                ascii("\":");
            } else if (k.type() == LuaValue.TSTRING) {
                string(k.checkstring());
                out.write(':');
            } else {
                throw exception(k, "table key must be a number or string");
            }
            value(n.arg(2), depth, stack + 2);
        }
        out.write('}');
    }

    private void string(LuaString s) {
        out.write('"');
        for (int i = 0; i < s.m_length; i++) {
            int b = s.m_bytes[s.m_offset + i] & 0xff;
            byte[] esc = ESCAPES[b];
            if (esc == null) {
                out.write(b);
            } else {
                out.writeBytes(esc);
            }
        }
        out.write('"');
    }

    private void number(LuaValue v) {
        double d = v.todouble();
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            if (cfg.encodeInvalidNumbers == 0) {
                throw exception(v, "must not be NaN or Inf");
            }
            if (cfg.encodeInvalidNumbers == 2) {
                ascii("null");
                return;
            }
            if (Double.isNaN(d)) {
                ascii("nan");
                return;
            }
        }
        ascii(formatG(d, cfg.encodeNumberPrecision));
    }

    private void ascii(String s) {
        out.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    /** C's {@code printf("%.<precision>g", d)}. */
    static String formatG(double d, int precision) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d < 0 ? "-inf" : "inf";
        }
        if (d == 0) {
            return 1 / d < 0 ? "-0" : "0";
        }
        BigDecimal bd = new BigDecimal(d).round(new MathContext(precision, RoundingMode.HALF_EVEN));
        int exp = bd.precision() - bd.scale() - 1;
        String digits = bd.unscaledValue().abs().toString().replaceFirst("0+$", "");
        if (digits.isEmpty()) {
            digits = "0";
        }
        StringBuilder sb = new StringBuilder();
        if (bd.signum() < 0) {
            sb.append('-');
        }
        if (exp < -4 || exp >= precision) {
            sb.append(digits.charAt(0));
            if (digits.length() > 1) {
                sb.append('.').append(digits, 1, digits.length());
            }
            sb.append('e').append(exp < 0 ? '-' : '+');
            int a = Math.abs(exp);
            if (a < 10) {
                sb.append('0');
            }
            sb.append(a);
        } else if (exp >= 0) {
            if (digits.length() <= exp + 1) {
                sb.append(digits).append("0".repeat(exp + 1 - digits.length()));
            } else {
                sb.append(digits, 0, exp + 1).append('.').append(digits, exp + 1, digits.length());
            }
        } else {
            sb.append("0.").append("0".repeat(-exp - 1)).append(digits);
        }
        return sb.toString();
    }
}
