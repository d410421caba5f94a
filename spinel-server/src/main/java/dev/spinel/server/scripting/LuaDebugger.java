package dev.spinel.server.scripting;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;

import dev.spinel.server.engine.ports.ClientConnection;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Varargs;

/**
 * One SCRIPT DEBUG SYNC session: Redis 7.0's Lua debugger (LDB, eval.c's ldb* functions) for one EVAL. The
 * sandbox's instruction hook calls {@link #instruction} on every instruction while the session runs (never
 * otherwise); on each new line of the script (Lua 5.1's line hook: a new function, a jump back, another line)
 * it stops when stepping or at a breakpoint, sends its log to the caller ({@code *N} status lines) and reads the
 * caller's next debugger command as raw RESP ({@link LdbCommands}), as Redis reads the socket while the script
 * waits. The commands are {@link LdbCommands}'s. A caller that goes away lets the script run to its end.
 *
 * <p>Thread-safety: used by the script thread only, except {@link #received}, which the caller's loop calls
 * (the bytes go through a blocking queue).
 */
final class LuaDebugger {
    private static final LuaString USER_SCRIPT = LuaValue.valueOf("@user_script");
    /** Redis's hook count: a timeout is checked every 100000 instructions. */
    private static final int COUNT = 100_000;
    /** The queue's mark of a peer gone. */
    private static final byte[] GONE = new byte[0];

    private final ClientConnection conn;
    final String[] lines;
    private final LongSupplier busyThreshold;
    private final Runnable check;
    /** Called as the script stops for the caller (true) and resumes (false): see {@link Scripting#debugSession}. */
    private final java.util.function.Consumer<Boolean> waiting;
    private final LinkedBlockingQueue<byte[]> input = new LinkedBlockingQueue<>();
    private final List<String> logs = new ArrayList<>();
    final LdbCommands commands;
    /** ldb.step: stop at the next line; also makes redis.call log its command and reply. */
    boolean step = true;
    /** ldb.luabp: redis.breakpoint() was called. */
    boolean luabp;
    int currentLine;
    int maxlen = 256;
    boolean maxlenHintSent;
    private boolean connected = true;
    private boolean inRepl;
    private int instructions;
    private long clockStart = System.nanoTime();
    /** The script's Lua globals (eval, KEYS, ARGV) and redis.call, set by {@link #attach}. */
    LuaValue env;
    Function<Varargs, Varargs> redisCall;

    LuaDebugger(ClientConnection conn, byte[] source, LongSupplier busyThreshold, Runnable check,
            java.util.function.Consumer<Boolean> waiting) {
        this.conn = conn;
        this.waiting = waiting;
        this.lines = sourceLines(source);
        this.busyThreshold = busyThreshold;
        this.check = check;
        this.commands = new LdbCommands(this);
    }

    /** ldbStartSession's split: trailing CR/LF removed, then one line per LF. */
    private static String[] sourceLines(byte[] src) {
        int len = src.length;
        while (len > 0 && (src[len - 1] == '\n' || src[len - 1] == '\r')) {
            len--;
        }
        if (len == 0) {
            return new String[0];
        }
        return new String(src, 0, len, StandardCharsets.ISO_8859_1).split("\n", -1);
    }

    void attach(LuaValue env, Function<Varargs, Varargs> redisCall) {
        this.env = env;
        this.redisCall = redisCall;
    }

    /** The tap's sink, on the caller's loop: bytes sent, or null when the caller is gone. */
    void received(byte[] bytes) {
        input.add(bytes == null ? GONE : bytes);
    }

    /** ldbIsEnabled: redis.call logs its command and reply (and errors are logged) only while stepping. */
    boolean stepping() {
        return step;
    }

    void log(String entry) {
        logs.add(entry);
    }

    /** ldbLogWithMaxLen: cut at maxlen, with a hint the first time. */
    void logWithMaxLen(String entry) {
        boolean trimmed = false;
        if (maxlen != 0 && entry.length() > maxlen) {
            entry = entry.substring(0, maxlen) + " ...";
            trimmed = true;
        }
        log(entry);
        if (trimmed && !maxlenHintSent) {
            maxlenHintSent = true;
            log("<hint> The above reply was trimmed. Use 'maxlen 0' to disable trimming.");
        }
    }

    /** ldbSendLogs: the entries as an array of status lines (CR and LF as spaces), straight to the caller. */
    void sendLogs() {
        StringBuilder sb = new StringBuilder("*").append(logs.size()).append("\r\n");
        for (String e : logs) {
            sb.append('+').append(e.replace('\r', ' ').replace('\n', ' ')).append("\r\n");
        }
        logs.clear();
        if (connected) {
            conn.sendRaw(sb.toString().getBytes(StandardCharsets.ISO_8859_1));
        }
    }

    /** ldbLogSourceLine. */
    void logSourceLine(int line) {
        String text = line >= 1 && line <= lines.length ? lines[line - 1] : "<out of range source code line>";
        boolean bp = commands.isBreakpoint(line);
        boolean current = currentLine == line;
        String prefix = current && bp ? "->#" : current ? "-> " : bp ? "  #" : "   ";
        log(prefix + String.format("%-3d", line) + " " + text);
    }

    /** The "<redis> ..." entry of a command the script calls while stepping (ten arguments at most). */
    void logCommand(byte[][] argv) {
        StringBuilder sb = new StringBuilder("<redis>");
        for (int j = 0; j < argv.length; j++) {
            if (j == 10) {
                sb.append(" ... (").append(argv.length - j - 1).append(" more)"); // Redis's count, one short
                break;
            }
            sb.append(' ').append(new String(argv[j], StandardCharsets.ISO_8859_1));
        }
        log(sb.toString());
    }

    /** A command's reply while stepping: an error first as luaPushErrorBuff logs it, then "<reply> ...". */
    void logReply(byte[] reply, int size) {
        if (size > 0 && reply[0] == '-') {
            int cr = 0;
            while (cr < size && reply[cr] != '\r') {
                cr++;
            }
            log("<error> " + new String(reply, 0, cr, StandardCharsets.ISO_8859_1));
        }
        StringBuilder sb = new StringBuilder("<reply> ");
        LdbFormat.reply(sb, reply, 0, size);
        logWithMaxLen(sb.toString());
    }

    /** redis.debug(...): "<debug> line N: " and the values, comma-separated. */
    void debug(Varargs args) {
        StringBuilder sb = new StringBuilder("<debug> line ").append(currentLine).append(": ");
        for (int i = 1; i <= args.narg(); i++) {
            LdbFormat.value(sb, args.arg(i));
            if (i != args.narg()) {
                sb.append(", ");
            }
        }
        log(sb.toString());
    }

    /** The session's end (ldbEndSession): the remaining log and the end mark. */
    void end() {
        log("<endsession>");
        sendLogs();
    }

    /**
     * The sandbox's hook, before instruction {@code pc} of {@code c} ({@code previous}: the frame's last one, -1
     * on entry): luaLdbLineHook on Lua 5.1's line events of the script, and its count event.
     */
    void instruction(LuaClosure c, int pc, int previous, LuaFrames frames) {
        if (inRepl) {
            return; // Lua runs no hook inside a hook: eval and redis commands of the debugger itself
        }
        boolean count = ++instructions == COUNT;
        if (count) {
            instructions = 0;
        }
        Prototype p = c.p;
        if (!USER_SCRIPT.raweq(p.source)) {
            return; // events outside the script are not interesting
        }
        int line = lineOf(p, pc);
        boolean lineEvent = previous < 0 || pc <= previous || line != lineOf(p, previous);
        if (!lineEvent && !count) {
            return;
        }
        currentLine = line;
        boolean bp = commands.isBreakpoint(line) || luabp;
        boolean timeout = false;
        if (count && !step && !bp) {
            long limit = busyThreshold.getAsLong() > 0 ? busyThreshold.getAsLong() : 5000;
            if ((System.nanoTime() - clockStart) / 1_000_000 >= limit) {
                timeout = true;
                step = true;
            } else if (!lineEvent) {
                return;
            }
        }
        if (step || bp) {
            String reason = bp ? (luabp ? "redis.breakpoint() called" : "break point")
                    : timeout ? "timeout reached, infinite loop?" : "step over";
            step = false;
            luabp = false;
            log("* Stopped at " + line + ", stop reason = " + reason);
            logSourceLine(line);
            sendLogs();
            waiting.accept(true);
            boolean connected;
            try {
                connected = repl(frames);
            } finally {
                waiting.accept(false);
            }
            if (!connected && timeout) {
                // the caller closed the connection: kill the script, or it would keep the server busy for ever
                throw new LuaError(LuaErrors.plain("timeout during Lua debugging with client closing connection"));
            }
            clockStart = System.nanoTime();
        }
    }

    static int lineOf(Prototype p, int pc) {
        return p.lineinfo != null && pc >= 0 && pc < p.lineinfo.length ? p.lineinfo[pc] : 0;
    }

    /** ldbRepl: runs the caller's commands until one resumes the script; false when the caller is gone. */
    private boolean repl(LuaFrames frames) {
        inRepl = true;
        try {
            while (true) {
                byte[][] argv = nextCommand();
                if (argv == null) {
                    step = false; // run to the end without the caller
                    commands.clearBreakpoints();
                    return false;
                }
                if (commands.run(argv, frames)) {
                    return true;
                }
            }
        } finally {
            inRepl = false;
        }
    }

    // ---- reading: ldbReplParseCommand over ldb.cbuf ----

    private byte[] cbuf = new byte[0];
    private int cbufLen;

    /** The next command, read as Redis does (the whole buffer dropped once one parsed); null: the caller is gone. */
    private byte[][] nextCommand() {
        while (true) {
            LdbInput.Parsed parsed = LdbInput.parse(cbuf, cbufLen);
            if (parsed == LdbInput.PROTOCOL_ERROR) {
                throw new LuaError(LuaErrors.plain("protocol error"));
            }
            if (parsed != null) {
                cbufLen = 0;
                return parsed.argv();
            }
            byte[] chunk = take();
            if (chunk == null) {
                return null;
            }
            if (cbufLen + chunk.length > cbuf.length) {
                cbuf = Arrays.copyOf(cbuf, Math.max(cbuf.length * 2, cbufLen + chunk.length));
            }
            System.arraycopy(chunk, 0, cbuf, cbufLen, chunk.length);
            cbufLen += chunk.length;
            if (cbufLen > 1 << 20) { // past 1 MB the session ends, so that the caller cannot use up the memory
                cbufLen = 0;
                cbuf = new byte[0];
                throw new LuaError(LuaErrors.plain("max client buffer reached"));
            }
        }
    }

    /** Waits for the caller's bytes; SCRIPT KILL and shutdown stop the wait (the check throws). */
    private byte[] take() {
        if (!connected) {
            return null;
        }
        try {
            while (true) {
                byte[] b = input.poll(100, TimeUnit.MILLISECONDS);
                if (b == GONE) {
                    connected = false;
                    return null;
                }
                if (b != null) {
                    return b;
                }
                check.run();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            connected = false;
            return null;
        }
    }

    /** The error text of an eval, as Lua 5.1 words it ("ldb_eval:1: x"). */
    static String errorText(LuaError e) {
        LuaValue obj = e.getMessageObject();
        if (obj != null && obj.istable() && obj.rawget("err").isstring()) {
            return obj.rawget("err").tojstring();
        }
        String m = LuaErrors.chomp(e.getMessage());
        if (m == null) {
            return "nil";
        }
        java.util.regex.Matcher pos = java.util.regex.Pattern.compile("^@?ldb_eval:(\\d+):? ").matcher(m);
        if (pos.find()) {
            return "ldb_eval:" + pos.group(1) + ": " + LuaErrors.typeError(m.substring(pos.end()));
        }
        return LuaErrors.luaText(m);
    }

    /** KEYS or ARGV, as the script sees them. */
    LuaValue global(String name) {
        return env.get(name);
    }

    LuaTable envTable() {
        return (LuaTable) env;
    }
}
