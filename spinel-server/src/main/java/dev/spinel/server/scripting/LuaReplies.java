package dev.spinel.server.scripting;

import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.protocol.RespValue;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * Redis 7.0's conversion rules between replies and Lua values, both ways.
 * <ul>
 *   <li>Reply → Lua (RESP2): integer → number, bulk → string, array → table, status → {@code {ok=s}},
 *       error → {@code {err=s}}, null bulk / null array → false. With {@code redis.setresp(3)} also:
 *       map → {@code {map={k=v}}}, set → {@code {set={m=true}}}, null → nil, boolean → boolean,
 *       double → {@code {double=n}}, big number → {@code {big_number=s}},
 *       verbatim → {@code {verbatim_string={format=f, string=s}}}.</li>
 *   <li>Lua → reply: number → integer (truncated), string → bulk, true → 1 (RESP3: true), false and nil →
 *       null (RESP3 false: false), table with {@code err} → error, {@code ok} → status, {@code double},
 *       {@code big_number}, {@code map}, {@code set} → their RESP3 types (RESP2 equivalents for RESP2
 *       callers), other tables → array of the elements 1..n up to the first nil.</li>
 * </ul>
 */
final class LuaReplies {
    private LuaReplies() {
    }

    static LuaValue toLua(RespValue v, int resp) {
        return switch (v) {
            case RespValue.SimpleString s -> field("ok", LuaValue.valueOf(s.value()));
            case RespValue.ErrorReply e -> LuaErrors.fromCommand(e.message());
            case RespValue.Integer i -> org.luaj.vm2.LuaInteger.valueOf(i.value());
            case RespValue.BulkString b -> LuaString.valueOf(b.value());
            case RespValue.Null n -> resp == 2 ? LuaValue.FALSE : LuaValue.NIL;
            case RespValue.Array a -> list(a.items(), resp);
            case RespValue.Push p -> list(p.items(), resp);
            case RespValue.SetValue s -> {
                LuaTable t = new LuaTable();
                for (RespValue m : s.items()) {
                    t.rawset(toLua(m, resp), LuaValue.TRUE);
                }
                yield field("set", t);
            }
            case RespValue.MapValue m -> {
                LuaTable t = new LuaTable();
                for (int i = 0; i + 1 < m.entries().size(); i += 2) {
                    t.rawset(toLua(m.entries().get(i), resp), toLua(m.entries().get(i + 1), resp));
                }
                yield field("map", t);
            }
            case RespValue.DoubleValue d -> field("double", LuaValue.valueOf(d.value()));
            case RespValue.BooleanValue b -> LuaValue.valueOf(b.value());
            case RespValue.BigNumber n -> field("big_number", LuaValue.valueOf(n.value()));
            case RespValue.Verbatim vs -> {
                LuaTable t = new LuaTable();
                t.rawset("format", LuaValue.valueOf(vs.format()));
                t.rawset("string", LuaValue.valueOf(vs.text()));
                yield field("verbatim_string", t);
            }
        };
    }

    private static LuaTable list(java.util.List<RespValue> items, int resp) {
        LuaTable t = new LuaTable();
        for (int i = 0; i < items.size(); i++) {
            t.rawset(i + 1, toLua(items.get(i), resp));
        }
        return t;
    }

    private static LuaTable field(String name, LuaValue value) {
        LuaTable t = new LuaTable();
        t.rawset(name, value);
        return t;
    }

    /**
     * Redis's {@code (long long)} cast of a Lua number on x86-64: a NaN or a value out of range gives
     * the "integer indefinite" {@code Long.MIN_VALUE} (Java's cast would saturate, or give 0 for NaN).
     */
    static long cLongCast(double d) {
        if (Double.isNaN(d) || d >= 0x1p63 || d < -0x1p63) {
            return Long.MIN_VALUE;
        }
        return (long) d;
    }

    /** Writes the script's result {@code v} as the caller's reply (in the caller's protocol). */
    static void toReply(LuaValue v, ReplyBuffer out, int resp) {
        switch (v.type()) {
            case LuaValue.TSTRING -> {
                LuaString s = v.checkstring();
                out.bulk(s.m_bytes, s.m_offset, s.m_length);
            }
            case LuaValue.TNUMBER -> out.integer(v.isinttype() ? v.toint() : cLongCast(v.todouble()));
            case LuaValue.TBOOLEAN -> {
                if (resp == 3) { // booleans follow the script's protocol (redis.setresp), as in Redis 7.0
                    out.bool(v.toboolean());
                } else if (v.toboolean()) {
                    out.integer(1);
                } else {
                    out.nullBulk();
                }
            }
            case LuaValue.TTABLE -> table(v, out, resp);
            default -> out.nullBulk();
        }
    }

    private static void table(LuaValue t, ReplyBuffer out, int resp) {
        LuaValue err = t.rawget("err");
        if (err.isstring()) {
            out.error(err.tojstring());
            return;
        }
        LuaValue ok = t.rawget("ok");
        if (ok.isstring()) {
            out.simple(ok.tojstring().replace('\r', ' ').replace('\n', ' '));
            return;
        }
        LuaValue dbl = t.rawget("double");
        if (dbl.type() == LuaValue.TNUMBER) {
            out.doubleValue(dbl.todouble());
            return;
        }
        LuaValue big = t.rawget("big_number");
        if (big.isstring()) {
            String s = big.tojstring().replace('\r', ' ').replace('\n', ' ');
            if (out.resp3()) {
                out.raw(("(" + s + "\r\n").getBytes(StandardCharsets.UTF_8));
            } else {
                out.bulk(s);
            }
            return;
        }
        LuaValue map = t.rawget("map");
        if (map.istable()) {
            int n = 0;
            for (Varargs e = map.next(LuaValue.NIL); !e.arg1().isnil(); e = map.next(e.arg1())) {
                n++;
            }
            out.map(n);
            for (Varargs e = map.next(LuaValue.NIL); !e.arg1().isnil(); e = map.next(e.arg1())) {
                toReply(e.arg1(), out, resp);
                toReply(e.arg(2), out, resp);
            }
            return;
        }
        LuaValue set = t.rawget("set");
        if (set.istable()) {
            int n = 0;
            for (Varargs e = set.next(LuaValue.NIL); !e.arg1().isnil(); e = set.next(e.arg1())) {
                n++;
            }
            out.set(n);
            for (Varargs e = set.next(LuaValue.NIL); !e.arg1().isnil(); e = set.next(e.arg1())) {
                toReply(e.arg1(), out, resp);
            }
            return;
        }
        int n = 0;
        while (!t.rawget(n + 1).isnil()) {
            n++;
        }
        out.array(n);
        for (int i = 1; i <= n; i++) {
            toReply(t.rawget(i), out, resp);
        }
    }

    /**
     * A Lua number as a command argument: Redis 7.0 formats it with {@code "%.17g"} (3 → "3",
     * 0.1 → "0.10000000000000001", 1e20 → "1e+20").
     */
    static String formatNumber(double d) {
        if (Double.isNaN(d)) {
            return d < 0 || Double.doubleToRawLongBits(d) < 0 ? "-nan" : "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0) {
            return 1 / d < 0 ? "-0" : "0";
        }
        BigDecimal bd = new BigDecimal(d).round(new MathContext(17, RoundingMode.HALF_EVEN));
        int exp = bd.precision() - bd.scale() - 1;
        if (exp < -4 || exp >= 17) {
            BigDecimal mant = bd.movePointLeft(exp).stripTrailingZeros();
            String m = mant.toPlainString();
            String e = Integer.toString(Math.abs(exp));
            return m + "e" + (exp < 0 ? "-" : "+") + (e.length() < 2 ? "0" + e : e);
        }
        String s = bd.stripTrailingZeros().toPlainString();
        return s;
    }
}
