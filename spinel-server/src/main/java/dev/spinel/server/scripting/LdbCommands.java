package dev.spinel.server.scripting;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.luaj.vm2.LocVars;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.compiler.LuaC;

/**
 * The Lua debugger's commands (Redis 7.0's ldbRepl and the ldbList, ldbPrint, ldbBreak, ldbEval, ldbRedis,
 * ldbTrace and ldbMaxlen it calls), with their texts. The breakpoints are kept as Redis keeps them, 64 ints,
 * removal included (its memmove moves bytes, not ints: what is left after removing one that is not the last is
 * what Redis leaves).
 *
 * <p>Thread-safety: none; the script thread's, inside one debugging session.
 */
final class LdbCommands {
    private static final int MAX_BREAKPOINTS = 64;
    private static final LuaString USER_SCRIPT = LuaValue.valueOf("@user_script");
    private static final String[] HELP = {
        "Redis Lua debugger help:",
        "[h]elp               Show this help.",
        "[s]tep               Run current line and stop again.",
        "[n]ext               Alias for step.",
        "[c]ontinue           Run till next breakpoint.",
        "[l]ist               List source code around current line.",
        "[l]ist [line]        List source code around [line].",
        "                     line = 0 means: current position.",
        "[l]ist [line] [ctx]  In this form [ctx] specifies how many lines",
        "                     to show before/after [line].",
        "[w]hole              List all source code. Alias for 'list 1 1000000'.",
        "[p]rint              Show all the local variables.",
        "[p]rint <var>        Show the value of the specified variable.",
        "                     Can also show global vars KEYS and ARGV.",
        "[b]reak              Show all breakpoints.",
        "[b]reak <line>       Add a breakpoint to the specified line.",
        "[b]reak -<line>      Remove breakpoint from the specified line.",
        "[b]reak 0            Remove all breakpoints.",
        "[t]race              Show a backtrace.",
        "[e]val <code>        Execute some Lua code (in a different callframe).",
        "[r]edis <cmd>        Execute a Redis command.",
        "[m]axlen [len]       Trim logged Redis replies and Lua var dumps to len.",
        "                     Specifying zero as <len> means unlimited.",
        "[a]bort              Stop the execution of the script. In sync",
        "                     mode dataset changes will be retained.",
        "",
        "Debugger functions you can call from Lua scripts:",
        "redis.debug()        Produce logs in the debugger console.",
        "redis.breakpoint()   Stop execution like if there was a breakpoint in the",
        "                     next line of code.",
    };

    private final LuaDebugger d;
    /** ldb.bp, as bytes (little-endian ints, as on x86-64): see the class comment. */
    private final ByteBuffer bp = ByteBuffer.allocate(MAX_BREAKPOINTS * 4).order(ByteOrder.LITTLE_ENDIAN);
    private int bpcount;

    LdbCommands(LuaDebugger d) {
        this.d = d;
    }

    boolean isBreakpoint(int line) {
        for (int j = 0; j < bpcount; j++) {
            if (bp.getInt(j * 4) == line) {
                return true;
            }
        }
        return false;
    }

    void clearBreakpoints() {
        bpcount = 0;
    }

    /** Runs one command; true when it resumes the script (step, continue). */
    boolean run(byte[][] argv, LuaFrames frames) {
        int argc = argv.length;
        String c = cString(argv[0]).toLowerCase(Locale.ROOT);
        switch (c) {
            case "h", "help" -> {
                for (String line : HELP) {
                    d.log(line);
                }
            }
            case "s", "step", "n", "next" -> {
                d.step = true;
                return true;
            }
            case "c", "continue" -> {
                return true;
            }
            case "t", "trace" -> trace(frames);
            case "m", "maxlen" -> maxlen(argv);
            case "b", "break" -> breakpoints(argv);
            case "e", "eval" -> eval(argv);
            case "a", "abort" -> throw new LuaError(LuaErrors.plain("script aborted for user request"));
            case "p", "print" -> {
                if (argc == 2) {
                    print(cString(argv[1]), frames);
                } else {
                    printAll(frames);
                }
            }
            case "l", "list" -> {
                int around = d.currentLine;
                int ctx = 5;
                if (argc > 1) {
                    int num = atoi(argv[1]);
                    if (num > 0) {
                        around = num;
                    }
                }
                if (argc > 2) {
                    ctx = atoi(argv[2]);
                }
                list(around, ctx);
            }
            case "w", "whole" -> list(1, 1000000);
            default -> {
                if (argc > 1 && (c.equals("r") || c.equals("redis"))) {
                    redis(argv);
                } else {
                    d.log("<error> Unknown Redis Lua debugger command or wrong number of arguments.");
                }
            }
        }
        d.sendLogs();
        return false;
    }

    /** ldbList: every line within {@code context} of {@code around} (0: the whole source). */
    private void list(int around, int context) {
        for (int j = 1; j <= d.lines.length; j++) {
            if (around != 0 && Math.abs((long) around - j) > context) {
                continue;
            }
            d.logSourceLine(j);
        }
    }

    private void maxlen(byte[][] argv) {
        if (argv.length == 2) {
            int v = atoi(argv[1]);
            d.maxlenHintSent = true; // the user knows about the command
            if (v != 0 && v <= 60) {
                v = 60;
            }
            d.maxlen = v;
        }
        d.log(d.maxlen != 0 ? "<value> replies are truncated at " + d.maxlen + " bytes." : "<value> replies are unlimited.");
    }

    private void breakpoints(byte[][] argv) {
        if (argv.length == 1) {
            if (bpcount == 0) {
                d.log("No breakpoints set. Use 'b <line>' to add one.");
                return;
            }
            d.log(bpcount + " breakpoints set:");
            for (int j = 0; j < bpcount; j++) {
                d.logSourceLine(bp.getInt(j * 4));
            }
            return;
        }
        for (int j = 1; j < argv.length; j++) {
            String arg = new String(argv[j], StandardCharsets.ISO_8859_1);
            Long line = string2l(arg);
            if (line == null) {
                d.log("Invalid argument:'" + cString(argv[j]) + "'");
            } else if (line == 0) {
                bpcount = 0;
                d.log("All breakpoints removed.");
            } else if (line > 0) {
                if (bpcount == MAX_BREAKPOINTS) {
                    d.log("Too many breakpoints set.");
                } else if (add((int) (long) line)) {
                    list((int) (long) line, 1);
                } else {
                    d.log("Wrong line number.");
                }
            } else {
                d.log(delete((int) -line) ? "Breakpoint removed." : "No breakpoint in the specified line.");
            }
        }
    }

    /** ldbAddBreakpoint: false for a line out of the source, or one already set. */
    private boolean add(int line) {
        if (line <= 0 || line > d.lines.length) {
            return false;
        }
        if (!isBreakpoint(line) && bpcount != MAX_BREAKPOINTS) {
            bp.putInt(bpcount++ * 4, line);
            return true;
        }
        return false;
    }

    /** ldbDelBreakpoint, its memmove of {@code bpcount - j} bytes included. */
    private boolean delete(int line) {
        for (int j = 0; j < bpcount; j++) {
            if (bp.getInt(j * 4) == line) {
                bpcount--;
                byte[] a = bp.array();
                System.arraycopy(a, (j + 1) * 4, a, j * 4, bpcount - j);
                return true;
            }
        }
        return false;
    }

    /** ldbEval: the code as an expression ("return " prepended), else as a statement; its value or error. */
    private void eval(byte[][] argv) {
        StringBuilder code = new StringBuilder();
        for (int j = 1; j < argv.length; j++) {
            if (j > 1) {
                code.append(' ');
            }
            code.append(new String(argv[j], StandardCharsets.ISO_8859_1));
        }
        LuaClosure f;
        try {
            f = compile("return " + code);
        } catch (LuaError e) {
            try {
                f = compile(code.toString());
            } catch (LuaError e2) {
                d.log("<error> " + LuaDebugger.errorText(e2).replace("unexpected symbol 286 (\u011e)", "unexpected symbol near '<eof>'"));
                return;
            }
        }
        try {
            LuaValue v = f.call();
            StringBuilder sb = new StringBuilder("<retval> ");
            LdbFormat.value(sb, v);
            d.logWithMaxLen(sb.toString());
        } catch (LuaError e) {
            d.log("<error> " + LuaDebugger.errorText(e));
        } catch (StackOverflowError e) {
            d.log("<error> stack overflow");
        }
    }

    private LuaClosure compile(String code) {
        try {
            Prototype p = LuaC.instance.compile(new java.io.ByteArrayInputStream(code.getBytes(StandardCharsets.ISO_8859_1)), "@ldb_eval");
            ScriptCache.noTailCalls(p); // "return error('x')": the error keeps its position, as the script's errors do
            return new LuaClosure(p, d.env);
        } catch (java.io.IOException e) {
            throw new LuaError(e.getMessage());
        }
    }

    /** ldbRedis: redis.call with the arguments, logged as while stepping (command, reply or error). */
    private void redis(byte[][] argv) {
        LuaValue[] args = new LuaValue[argv.length - 1];
        for (int j = 1; j < argv.length; j++) {
            args[j - 1] = LuaValue.valueOf(argv[j]);
        }
        d.step = true;
        try {
            d.redisCall.apply(LuaValue.varargsOf(args));
        } catch (LuaError e) {
            // lua_pcall: the error is the script's to see, not the debugger's
        } finally {
            d.step = false;
        }
    }

    /** ldbTrace: each frame of the script, from the current one out. */
    private void trace(LuaFrames f) {
        for (int i = f.depth - 1; i >= 0; i--) {
            if (f.functions[i] instanceof LuaClosure c && USER_SCRIPT.raweq(c.p.source)) {
                String name = i > 0 && f.functions[i - 1] instanceof LuaClosure caller
                        ? Lua51TypeErrors.calledName(caller.p, f.pcs[i - 1]) : null;
                d.log((i == f.depth - 1 ? "In " : "From ") + (name != null ? name : "top level") + ":");
                d.logSourceLine(LuaDebugger.lineOf(c.p, f.pcs[i]));
            }
        }
        if (f.depth == 0) {
            d.log("<error> Can't retrieve Lua stack.");
        }
    }

    /** ldbPrint: the first local of that name from the current frame out, else KEYS or ARGV. */
    private void print(String name, LuaFrames f) {
        for (int i = f.depth - 1; i >= 0; i--) {
            if (f.functions[i] instanceof LuaClosure c && f.stacks[i] != null) {
                Prototype p = c.p;
                int pc = f.pcs[i];
                int n = 0;
                for (LocVars v : p.locvars) {
                    if (v.startpc > pc) {
                        break;
                    }
                    if (pc < v.endpc) {
                        if (v.varname.tojstring().equals(name)) {
                            logValue("<value> ", f.stacks[i][n]);
                            return;
                        }
                        n++;
                    }
                }
            }
        }
        if (name.equals("ARGV") || name.equals("KEYS")) {
            logValue("<value> ", d.global(name));
        } else {
            d.log("No such variable.");
        }
    }

    /** ldbPrintAll: the locals of the current frame. */
    private void printAll(LuaFrames f) {
        int vars = 0;
        int i = f.depth - 1;
        if (i >= 0 && f.functions[i] instanceof LuaClosure c && f.stacks[i] != null) {
            int pc = f.pcs[i];
            int n = 0;
            for (LocVars v : c.p.locvars) {
                if (v.startpc > pc) {
                    break;
                }
                if (pc < v.endpc) {
                    logValue("<value> " + v.varname.tojstring() + " = ", f.stacks[i][n]);
                    n++;
                    vars++;
                }
            }
        }
        if (vars == 0) {
            d.log("No local variables in the current context.");
        }
    }

    private void logValue(String prefix, LuaValue v) {
        StringBuilder sb = new StringBuilder(prefix);
        LdbFormat.value(sb, v == null ? LuaValue.NIL : v);
        d.logWithMaxLen(sb.toString());
    }

    /** The argument as C sees it: up to its first NUL (strcasecmp, %s). */
    private static String cString(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.ISO_8859_1);
    }

    private static int atoi(byte[] b) {
        long v = LdbInput.atoi(b, 0, b.length);
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }

    /** Redis's string2l: a plain decimal (no spaces, no '+', no leading zero), else null. */
    private static Long string2l(String s) {
        if (!s.matches("0|-?[1-9][0-9]{0,18}")) {
            return null;
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
