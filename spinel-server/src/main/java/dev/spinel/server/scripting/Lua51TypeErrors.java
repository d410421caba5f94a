package dev.spinel.server.scripting;

import org.luaj.vm2.Lua;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;

/**
 * The type errors of Lua 5.1 (Redis's Lua) with the variable they name: "attempt to call field 'x' (a nil
 * value)", where LuaJ says "attempt to call nil". Given the instruction that failed and the registers of its
 * frame, it finds the operand of the wrong type and names it as Lua 5.1's getobjname does: a local, an
 * upvalue, a global, a field or a method, found by tracing back which instruction last set the register
 * (over LuaJ's Lua 5.2 bytecode).
 *
 * <p>Only instructions whose operands really are of the wrong type (and have no metamethod that could have
 * raised the error instead) are rewritten; for anything else {@link #message} returns null and the error
 * keeps its own text. Thread-safety: stateless.
 */
final class Lua51TypeErrors {
    private static final LuaString ENV = LuaValue.valueOf("_ENV");
    private static final LuaString CALL = LuaValue.valueOf("__call");
    private static final LuaString INDEX = LuaValue.valueOf("__index");
    private static final LuaString NEWINDEX = LuaValue.valueOf("__newindex");
    private static final LuaString UNM = LuaValue.valueOf("__unm");
    private static final LuaString LEN = LuaValue.valueOf("__len");
    private static final LuaString CONCAT = LuaValue.valueOf("__concat");
    private static final LuaString[] ARITH = {
        LuaValue.valueOf("__add"), LuaValue.valueOf("__sub"), LuaValue.valueOf("__mul"),
        LuaValue.valueOf("__div"), LuaValue.valueOf("__mod"), LuaValue.valueOf("__pow")};

    private Lua51TypeErrors() {
    }

    /**
     * Lua 5.1's text (without position) for the type error the instruction at {@code pc} of {@code c}
     * raised, its registers in {@code stack}; null when that instruction did not fail on an operand's type.
     */
    static String message(LuaClosure c, LuaValue[] stack, int pc) {
        Prototype p = c.p;
        if (pc < 0 || pc >= p.code.length) {
            return null;
        }
        int i = p.code[pc];
        int op = Lua.GET_OPCODE(i);
        int a = Lua.GETARG_A(i);
        int b = Lua.GETARG_B(i);
        int cArg = Lua.GETARG_C(i);
        switch (op) {
            case Lua.OP_CALL, Lua.OP_TAILCALL -> {
                LuaValue f = reg(stack, a);
                return f == null || f.isfunction() || hasMeta(f, CALL) ? null : typeError(p, pc, a, f, "call");
            }
            case Lua.OP_GETTABLE, Lua.OP_SELF -> {
                LuaValue t = reg(stack, b);
                return t == null || t.istable() || hasMeta(t, INDEX) ? null : typeError(p, pc, b, t, "index");
            }
            case Lua.OP_SETTABLE -> {
                LuaValue t = reg(stack, a);
                return t == null || t.istable() || hasMeta(t, NEWINDEX) ? null : typeError(p, pc, a, t, "index");
            }
            case Lua.OP_GETTABUP, Lua.OP_SETTABUP -> {
                int up = op == Lua.OP_GETTABUP ? b : a;
                if (up >= c.upValues.length || up >= p.upvalues.length || ENV.eq_b(name(p.upvalues[up].name))) {
                    return null;
                }
                LuaValue t = c.upValues[up].getValue();
                if (t.istable() || hasMeta(t, op == Lua.OP_GETTABUP ? INDEX : NEWINDEX)) {
                    return null;
                }
                return "attempt to index upvalue '" + name(p.upvalues[up].name).tojstring() + "' (a " + t.typename() + " value)";
            }
            case Lua.OP_ADD, Lua.OP_SUB, Lua.OP_MUL, Lua.OP_DIV, Lua.OP_MOD, Lua.OP_POW -> {
                LuaValue x = rk(p, stack, b);
                LuaValue y = rk(p, stack, cArg);
                LuaString event = ARITH[op - Lua.OP_ADD];
                if (x == null || y == null || (x.isnumber() && y.isnumber()) || hasMeta(x, event) || hasMeta(y, event)) {
                    return null;
                }
                // Lua 5.1's luaG_aritherror: the second operand is blamed only when the first converts to a number
                boolean first = !x.isnumber();
                return typeError(p, pc, first ? (Lua.ISK(b) ? -1 : b) : (Lua.ISK(cArg) ? -1 : cArg), first ? x : y,
                        "perform arithmetic on");
            }
            case Lua.OP_UNM -> {
                LuaValue x = reg(stack, b);
                return x == null || x.isnumber() || hasMeta(x, UNM) ? null : typeError(p, pc, b, x, "perform arithmetic on");
            }
            case Lua.OP_LEN -> {
                LuaValue x = reg(stack, b);
                return x == null || x.istable() || x.isstring() || hasMeta(x, LEN) ? null
                        : typeError(p, pc, b, x, "get length of");
            }
            case Lua.OP_CONCAT -> {
                return concat(p, stack, pc, b, cArg);
            }
            default -> {
                return null;
            }
        }
    }

    /**
     * Lua 5.1's luaV_concat works from the right: the strings at the top are joined, then the first pair
     * with a value that is neither string nor number fails, blaming its left value unless that one is a
     * string or number.
     */
    private static String concat(Prototype p, LuaValue[] stack, int pc, int from, int to) {
        if (to >= stack.length) {
            return null;
        }
        int bad = -1;
        for (int r = from; r <= to; r++) {
            LuaValue v = stack[r];
            if (hasMeta(v, CONCAT)) {
                return null; // a metamethod ran: the error is its own
            }
            if (!v.isstring()) { // LuaJ: a number is a string here too, as in Lua
                bad = r;
            }
        }
        if (bad < 0) {
            return null;
        }
        int blamed = bad == to && bad > from && !stack[bad - 1].isstring() ? bad - 1 : bad;
        return typeError(p, pc, blamed, stack[blamed], "concatenate");
    }

    /** luaG_typeerror: "attempt to OP KIND 'NAME' (a TYPE value)", or without a name "attempt to OP a TYPE value". */
    private static String typeError(Prototype p, int pc, int reg, LuaValue v, String op) {
        String name = reg < 0 ? null : objectName(p, pc, reg);
        return name == null ? "attempt to " + op + " a " + v.typename() + " value"
                : "attempt to " + op + " " + name + " (a " + v.typename() + " value)";
    }

    /** Lua's getobjname: "local 'x'", "global 'x'", "field 'x'", "upvalue 'x'", "method 'x'", or null. */
    /**
     * The name Lua 5.1's getfuncname gives the function that the call at {@code pc} of {@code p} runs ("f" for a
     * local, global, field, method or upvalue named f), or null: the debugger's backtrace.
     */
    static String calledName(Prototype p, int pc) {
        if (pc < 0 || pc >= p.code.length) {
            return null;
        }
        int i = p.code[pc];
        int op = Lua.GET_OPCODE(i);
        if (op != Lua.OP_CALL && op != Lua.OP_TAILCALL) {
            return null;
        }
        String n = objectName(p, pc, Lua.GETARG_A(i));
        int q = n == null ? -1 : n.indexOf('\'');
        return q < 0 ? null : n.substring(q + 1, n.length() - 1);
    }

    private static String objectName(Prototype p, int pc, int reg) {
        LuaString local = p.getlocalname(reg + 1, pc);
        if (local != null) {
            return "local '" + local.tojstring() + "'";
        }
        int set = findSetReg(p, pc, reg);
        if (set < 0) {
            return null;
        }
        int i = p.code[set];
        int op = Lua.GET_OPCODE(i);
        switch (op) {
            case Lua.OP_MOVE -> {
                int b = Lua.GETARG_B(i);
                return b < Lua.GETARG_A(i) ? objectName(p, set, b) : null;
            }
            case Lua.OP_GETTABUP, Lua.OP_GETTABLE -> {
                int t = Lua.GETARG_B(i);
                LuaString table = op == Lua.OP_GETTABLE ? p.getlocalname(t + 1, set)
                        : t < p.upvalues.length ? name(p.upvalues[t].name) : null;
                String kind = table != null && ENV.eq_b(table) ? "global" : "field";
                return kind + " '" + constantName(p, Lua.GETARG_C(i)) + "'";
            }
            case Lua.OP_GETUPVAL -> {
                int u = Lua.GETARG_B(i);
                return u < p.upvalues.length ? "upvalue '" + name(p.upvalues[u].name).tojstring() + "'" : null;
            }
            case Lua.OP_SELF -> {
                return "method '" + constantName(p, Lua.GETARG_C(i)) + "'";
            }
            default -> {
                return null;
            }
        }
    }

    /** Lua 5.2's findsetreg: the last instruction before {@code lastpc} that set {@code reg}, or -1 (inside a jump). */
    private static int findSetReg(Prototype p, int lastpc, int reg) {
        int setreg = -1;
        int jmptarget = 0; // code before this point may have been skipped by a jump
        for (int pc = 0; pc < lastpc; pc++) {
            int i = p.code[pc];
            int op = Lua.GET_OPCODE(i);
            int a = Lua.GETARG_A(i);
            boolean change;
            switch (op) {
                case Lua.OP_LOADNIL -> change = a <= reg && reg <= a + Lua.GETARG_B(i);
                case Lua.OP_TFORCALL -> change = reg >= a + 2;
                case Lua.OP_CALL, Lua.OP_TAILCALL -> change = reg >= a;
                case Lua.OP_JMP -> {
                    int dest = pc + 1 + Lua.GETARG_sBx(i);
                    if (pc < dest && dest <= lastpc && dest > jmptarget) {
                        jmptarget = dest;
                    }
                    change = false;
                }
                default -> change = Lua.testAMode(op) && reg == a;
            }
            if (change) {
                setreg = pc < jmptarget ? -1 : pc;
            }
        }
        return setreg;
    }

    /** Lua 5.1's kname: a string constant's text, else "?". */
    private static String constantName(Prototype p, int rk) {
        if (Lua.ISK(rk)) {
            LuaValue k = p.k[Lua.INDEXK(rk)];
            if (k.type() == LuaValue.TSTRING) {
                return k.tojstring();
            }
        }
        return "?";
    }

    private static LuaString name(LuaString s) {
        return s == null ? LuaValue.valueOf("?") : s;
    }

    private static LuaValue reg(LuaValue[] stack, int r) {
        return stack != null && r < stack.length ? stack[r] : null;
    }

    private static LuaValue rk(Prototype p, LuaValue[] stack, int rk) {
        return Lua.ISK(rk) ? p.k[Lua.INDEXK(rk)] : reg(stack, rk);
    }

    private static boolean hasMeta(LuaValue v, LuaString event) {
        LuaValue mt = v.getmetatable();
        return mt != null && !mt.rawget(event).isnil();
    }
}
