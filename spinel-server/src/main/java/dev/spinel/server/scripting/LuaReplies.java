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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

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

    private static LuaTable list(List<RespValue> items, int resp) {
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

    /**
     * Redis converts a reply on the Lua stack and checks before each value that 4 more slots fit under Lua's
     * C-stack limit (LUAI_MAXCSTACK, 8000); a value nested deeper is answered "reached lua stack limit" in its
     * place. The result itself sits at slot 2; an array's element is 1 slot above its table, a map's key 4 and
     * value 3 (the map table, key, value and a copy of the key are pushed), a set's member 3. A self-referencing table so ends after 7995 levels, as in Redis.
     */
    private static final int LUA_STACK_LIMIT = 8000;
    private static final int RESULT_SLOT = 2;

    /** One value still to write, and the Lua stack slots Redis would hold when writing it. */
    private record Pending(LuaValue value, int top) {
    }

    /**
     * Writes the script's result {@code v} as the caller's reply (in the caller's protocol). Iterative, with
     * a stack of values still to write, so that a deeply nested (or self-referencing) table cannot overflow
     * the Java stack.
     */
    static void toReply(LuaValue v, ReplyBuffer out, int resp) {
        ArrayDeque<Pending> todo = new ArrayDeque<>();
        todo.push(new Pending(v, RESULT_SLOT));
        while (!todo.isEmpty()) {
            Pending p = todo.pop();
            if (p.top() + 4 > LUA_STACK_LIMIT) {
                out.error("ERR reached lua stack limit");
                continue;
            }
            LuaValue value = p.value();
            switch (value.type()) {
                case LuaValue.TSTRING -> {
                    LuaString s = value.checkstring();
                    out.bulk(s.m_bytes, s.m_offset, s.m_length);
                }
                case LuaValue.TNUMBER -> out.integer(value.isinttype() ? value.toint() : cLongCast(value.todouble()));
                case LuaValue.TBOOLEAN -> {
                    if (resp == 3) { // booleans follow the script's protocol (redis.setresp), as in Redis 7.0
                        out.bool(value.toboolean());
                    } else if (value.toboolean()) {
                        out.integer(1);
                    } else {
                        out.nullBulk();
                    }
                }
                case LuaValue.TTABLE -> table(value, p.top(), out, todo);
                default -> out.nullBulk();
            }
        }
    }

    /** Writes a table's own reply, or its header with its elements pushed onto {@code todo} (first on top). */
    private static void table(LuaValue t, int top, ReplyBuffer out, ArrayDeque<Pending> todo) {
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
        LuaValue verbatim = t.rawget("verbatim_string");
        if (verbatim.istable() && verbatim.rawget("format").type() == LuaValue.TSTRING
                && verbatim.rawget("string").type() == LuaValue.TSTRING) {
            // Redis's addReplyVerbatim: RESP3's =len\r\nfmt:text (three bytes of format), a bulk string in RESP2
            byte[] text = bytes(verbatim.rawget("string").checkstring());
            if (out.resp3()) {
                byte[] format = bytes(verbatim.rawget("format").checkstring());
                out.raw(("=" + (text.length + 4) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.raw(java.util.Arrays.copyOf(format, 3));
                out.raw(new byte[] {':'});
                out.raw(text);
                out.raw(new byte[] {'\r', '\n'});
            } else {
                out.bulk(text);
            }
            return;
        }
        List<Pending> elements = new ArrayList<>();
        LuaValue map = t.rawget("map");
        LuaValue set = t.rawget("set");
        if (map.istable()) {
            for (Varargs e = map.next(LuaValue.NIL); !e.arg1().isnil(); e = map.next(e.arg1())) {
                elements.add(new Pending(e.arg1(), top + 4));
                elements.add(new Pending(e.arg(2), top + 3));
            }
            out.map(elements.size() / 2);
        } else if (set.istable()) {
            for (Varargs e = set.next(LuaValue.NIL); !e.arg1().isnil(); e = set.next(e.arg1())) {
                elements.add(new Pending(e.arg1(), top + 3));
            }
            out.set(elements.size());
        } else {
            for (int i = 1; !t.rawget(i).isnil(); i++) {
                elements.add(new Pending(t.rawget(i), top + 1));
            }
            out.array(elements.size());
        }
        for (int i = elements.size() - 1; i >= 0; i--) {
            todo.push(elements.get(i));
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

    private static byte[] bytes(LuaString s) {
        return java.util.Arrays.copyOfRange(s.m_bytes, s.m_offset, s.m_offset + s.m_length);
    }
}
