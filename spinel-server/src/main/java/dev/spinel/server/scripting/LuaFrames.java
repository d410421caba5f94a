package dev.spinel.server.scripting;

import java.util.Arrays;

import org.luaj.vm2.Lua;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;

/**
 * One Lua thread's call frames, kept by the sandbox's instruction hook: each function LuaJ announced (its Lua
 * functions, and the pcall/xpcall it runs as frames of their own), its registers and its current instruction.
 *
 * <p>{@link #where} reads them as Lua 5.1's call stack, which differs from LuaJ's in two ways: a Java function
 * that calls back into Lua (table.sort's comparator, gsub's replacement function) has no frame of its own here,
 * where Lua 5.1 has a C frame; and a {@code return f(...)}, which Spinel compiles as a plain call
 * ({@link ScriptCache#noTailCalls}), keeps its caller's frame, where Lua 5.1 replaces it with f's and counts a
 * lost tail call.
 *
 * <p>Thread-safety: none; a Lua thread's frames are only touched by the Java thread that runs it, one script at
 * a time.
 */
final class LuaFrames {
    int depth;
    LuaFunction[] functions = new LuaFunction[16];
    LuaValue[][] stacks = new LuaValue[16][];
    int[] pcs = new int[16];

    void push(LuaFunction f, LuaValue[] stack) {
        if (depth == functions.length) {
            functions = Arrays.copyOf(functions, depth * 2);
            stacks = Arrays.copyOf(stacks, depth * 2);
            pcs = Arrays.copyOf(pcs, depth * 2);
        }
        functions[depth] = f;
        stacks[depth] = stack;
        pcs[depth] = -1;
        depth++;
    }

    void pop() {
        if (depth > 0) {
            depth--;
            functions[depth] = null;
            stacks[depth] = null;
        }
    }

    /**
     * Lua 5.1's luaL_where(L, level) as error(msg, level) sees it, called by the function on top of these frames
     * (level 1): {@code "user_script:7: "}, or "" when the frame at that level is a C function, a lost tail
     * call, or beyond the thread's first frame.
     */
    String where(int level) {
        // lua_getstack from error's own frame (level 0): each frame one level, plus the tail calls it replaced
        int remaining = level - 1;
        int i = depth - 1;
        boolean hiddenC = false; // a Java function between frame i and its caller, with no frame of its own
        while (remaining > 0 && i >= 0) {
            if (hiddenC) {
                remaining--;
                hiddenC = false;
                continue;
            }
            int caller = i;
            if (functions[i] instanceof LuaClosure) {
                while (caller > 0 && callsAsTail(caller - 1, functions[caller])) {
                    caller--;
                    remaining--; // a tail call Lua 5.1 would have lost
                }
                hiddenC = caller > 0 && callsThroughJava(caller - 1, functions[caller]);
            }
            remaining--;
            i = caller - 1;
        }
        if (remaining != 0 || i < 0 || hiddenC || !(functions[i] instanceof LuaClosure c)) {
            return "";
        }
        Prototype p = c.p;
        int pc = pcs[i];
        if (p.lineinfo == null || pc < 0 || pc >= p.lineinfo.length) {
            return "";
        }
        return shortSource(p.source == null ? "?" : p.source.tojstring()) + ":" + p.lineinfo[pc] + ": ";
    }

    /** Whether frame {@code i} called {@code callee} with a {@code return callee(...)} (CALL A B 0; RETURN A 0). */
    private boolean callsAsTail(int i, LuaFunction callee) {
        if (!started(i)) {
            return false;
        }
        int ins = instruction(i);
        if (Lua.GET_OPCODE(ins) != Lua.OP_CALL || Lua.GETARG_C(ins) != 0) {
            return false;
        }
        int[] code = ((LuaClosure) functions[i]).p.code;
        int pc = pcs[i];
        if (pc + 1 >= code.length) {
            return false;
        }
        int next = code[pc + 1];
        int a = Lua.GETARG_A(ins);
        return Lua.GET_OPCODE(next) == Lua.OP_RETURN && Lua.GETARG_A(next) == a && Lua.GETARG_B(next) == 0
                && stacks[i] != null && a < stacks[i].length && stacks[i][a] == callee;
    }

    /** Whether frame {@code i} called a Java function that called {@code callee} (a Lua function) in turn. */
    private boolean callsThroughJava(int i, LuaFunction callee) {
        if (!started(i)) {
            return false;
        }
        int ins = instruction(i);
        if (Lua.GET_OPCODE(ins) != Lua.OP_CALL && Lua.GET_OPCODE(ins) != Lua.OP_TAILCALL) {
            return false; // a metamethod, which Lua 5.1 calls from the VM with no C frame between
        }
        int a = Lua.GETARG_A(ins);
        LuaValue called = stacks[i] != null && a < stacks[i].length ? stacks[i][a] : null;
        return called != callee && called instanceof LuaFunction && !(called instanceof LuaClosure);
    }

    /** Whether frame {@code i} is a Lua function that has started an instruction. */
    private boolean started(int i) {
        return functions[i] instanceof LuaClosure c && pcs[i] >= 0 && pcs[i] < c.p.code.length;
    }

    /** Frame {@code i}'s current instruction (a {@link #started} frame). */
    private int instruction(int i) {
        return ((LuaClosure) functions[i]).p.code[pcs[i]];
    }

    /** Lua 5.1's short_src of a chunk name: "@file" and "=name" as named, a string chunk as [string "..."]. */
    private static String shortSource(String source) {
        if (source.startsWith("@") || source.startsWith("=")) {
            return source.substring(1);
        }
        return LuaSandbox.chunkId(source);
    }
}
