package dev.spinel.server.scripting;

import dev.spinel.protocol.Repr;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

/**
 * The Lua debugger's text for values and replies, as Redis 7.0's eval.c writes them: a Lua value
 * ({@code ldbCatStackValue}: strings quoted as sdscatrepr, numbers as C's {@code %g}, tables as
 * {@code {1; 2}} or {@code {[k]=v}}), and a command's RESP reply made readable ({@code ldbRedisProtocolToHuman}).
 * Texts are byte strings: one char per byte (ISO-8859-1), as they are sent.
 *
 * <p>Stateless and thread-safe.
 */
final class LdbFormat {
    /** Redis's LDB_MAX_VALUES_DEPTH (LUA_MINSTACK / 2). */
    private static final int MAX_DEPTH = 10;

    private LdbFormat() {
    }

    /** ldbCatStackValue: {@code v} appended to {@code sb}. */
    static void value(StringBuilder sb, LuaValue v) {
        value(sb, v, 0);
    }

    private static void value(StringBuilder sb, LuaValue v, int level) {
        if (level++ == MAX_DEPTH) {
            sb.append("<max recursion level reached! Nested table?>");
            return;
        }
        switch (v.type()) {
            case LuaValue.TSTRING -> {
                LuaString s = v.checkstring();
                Repr.append(sb, s.m_bytes, s.m_offset, s.m_length);
            }
            case LuaValue.TBOOLEAN -> sb.append(v.toboolean() ? "true" : "false");
            case LuaValue.TNUMBER -> sb.append(CjsonEncoder.formatG(v.todouble(), 6));
            case LuaValue.TNIL -> sb.append("nil");
            case LuaValue.TTABLE -> table(sb, (LuaTable) v, level);
            default -> {
                String type = switch (v.type()) {
                    case LuaValue.TFUNCTION -> "function";
                    case LuaValue.TUSERDATA -> "userdata";
                    case LuaValue.TTHREAD -> "thread";
                    case LuaValue.TLIGHTUSERDATA -> "light-userdata";
                    default -> null;
                };
                if (type == null) {
                    sb.append("\"<unknown-lua-type>\"");
                } else {
                    // Lua's address of the object; the JVM's identity hash stands for it
                    sb.append('"').append(type).append("@0x").append(Integer.toHexString(System.identityHashCode(v))).append('"');
                }
            }
        }
    }

    /** Both representations are built, as Redis does, and the array one kept if the keys were 1, 2, 3... in order. */
    private static void table(StringBuilder sb, LuaTable t, int level) {
        StringBuilder array = new StringBuilder();
        StringBuilder full = new StringBuilder();
        boolean isArray = true;
        int expected = 1;
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs next = t.next(k);
            k = next.arg1();
            if (k.isnil()) {
                break;
            }
            LuaValue v = next.arg(2);
            if (isArray && (k.type() != LuaValue.TNUMBER || k.todouble() != expected)) {
                isArray = false;
            }
            value(array, v, level);
            array.append("; ");
            full.append('[');
            value(full, k, level);
            full.append("]=");
            value(full, v, level);
            full.append("; ");
            expected++;
        }
        StringBuilder kept = isArray ? array : full;
        if (kept.length() > 0) {
            kept.setLength(kept.length() - 2);
        }
        sb.append('{').append(kept).append('}');
    }

    /** ldbRedisProtocolToHuman: the reply at {@code r[pos]} appended to {@code sb}; returns the position after it. */
    static int reply(StringBuilder sb, byte[] r, int pos, int end) {
        if (pos >= end) {
            return end;
        }
        int cr = pos + 1;
        while (cr < end && r[cr] != '\r') {
            cr++;
        }
        String head = new String(r, pos + 1, cr - pos - 1, java.nio.charset.StandardCharsets.ISO_8859_1);
        int next = cr + 2;
        switch (r[pos]) {
            case ':' -> sb.append(head);
            case '$' -> {
                long len = Long.parseLong(head);
                if (len == -1) {
                    sb.append("NULL");
                } else {
                    Repr.append(sb, r, next, (int) len);
                    next += (int) len + 2;
                }
            }
            case '+', '-' -> Repr.append(sb, r, pos, cr - pos);
            case '*' -> {
                long n = Long.parseLong(head);
                if (n == -1) {
                    sb.append("NULL");
                    return next;
                }
                sb.append('[');
                for (long j = 0; j < n; j++) {
                    next = reply(sb, r, next, end);
                    if (j != n - 1) {
                        sb.append(',');
                    }
                }
                sb.append(']');
            }
            case '~' -> {
                long n = Long.parseLong(head);
                sb.append("~(");
                for (long j = 0; j < n; j++) {
                    next = reply(sb, r, next, end);
                    if (j != n - 1) {
                        sb.append(',');
                    }
                }
                sb.append(')');
            }
            case '%' -> {
                long n = Long.parseLong(head);
                sb.append('{');
                for (long j = 0; j < n; j++) {
                    next = reply(sb, r, next, end);
                    sb.append(" => ");
                    next = reply(sb, r, next, end);
                    if (j != n - 1) {
                        sb.append(',');
                    }
                }
                sb.append('}');
            }
            case '_' -> sb.append("(null)");
            case '#' -> sb.append(r[pos + 1] == 't' ? "#true" : "#false");
            case ',' -> sb.append("(double) ").append(head);
            default -> {
                return end; // another RESP3 type (verbatim, big number...): Redis has no text for it either
            }
        }
        return next;
    }
}
