package dev.spinel.server.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Error texts between Lua and Redis replies, in Redis 7.0's words: the {@code {err=...}} tables that
 * {@code redis.call} raises and {@code redis.pcall} returns, and the reply of a script that failed
 * ({@code "<error> script: <sha>, on @user_script:<line>."}).
 *
 * <p>LuaJ writes positions as {@code "@user_script:3 msg"}; Lua 5.1 (Redis) as
 * {@code "user_script:3: msg"}: {@link #luaText} converts.
 */
final class LuaErrors {
    private static final Pattern POSITION = Pattern.compile("^@?(user_script|user_function):(\\d+):? ");

    private LuaErrors() {
    }

    /**
     * The error table of Redis's {@code luaPushErrorBuff}: an error reply's text ("CODE msg") kept as is,
     * a text without a code ("msg") gets "ERR "; CR/LF at the ends trimmed.
     */
    static LuaTable table(String message) {
        String m = message.startsWith("-") ? message.substring(1) : message;
        int sp = m.indexOf(' ');
        String text = sp < 0 ? "ERR " + m : m;
        text = strip(text);
        LuaTable t = new LuaTable();
        t.rawset("err", LuaValue.valueOf(text));
        return t;
    }

    /** The field Redis 7.0 adds to the error tables of redis.call/pcall: the error was counted where it happened. */
    static final String IGNORE_STATS = "ignore_error_stats_update";

    /** The error table of a command's error reply or refusal in redis.call/pcall (Redis's redisProtocolToLuaType_Error). */
    static LuaTable fromCommand(String message) {
        LuaTable t = table(message);
        t.rawset(IGNORE_STATS, LuaValue.TRUE);
        return t;
    }

    /** Whether a script's error value is one already counted in INFO errorstats (see {@link #fromCommand}). */
    static boolean statsCounted(LuaValue v) {
        return v != null && v.istable() && v.rawget(IGNORE_STATS).toboolean();
    }

    /** A refusal or message without a code (e.g. "wrong number of arguments") as an error table. */
    static LuaTable plain(String message) {
        LuaTable t = new LuaTable();
        t.rawset("err", LuaValue.valueOf("ERR " + message));
        return t;
    }

    private static String strip(String s) {
        int a = 0;
        int b = s.length();
        while (a < b && (s.charAt(a) == '\r' || s.charAt(a) == '\n')) {
            a++;
        }
        while (b > a && (s.charAt(b - 1) == '\r' || s.charAt(b - 1) == '\n')) {
            b--;
        }
        return s.substring(a, b);
    }

    /**
     * Marks, in what LuaJ appends to an error's message (the instruction hook's traceback), Lua 5.1's text of
     * a type error ({@link Lua51TypeErrors}).
     */
    static final String LUA51_TEXT = "\u0000lua51:";

    /**
     * Without what LuaJ's error hook appends (a newline, and the hook's traceback): a type error's text
     * replaced by Lua 5.1's words when the hook gave them, its position kept.
     */
    static String chomp(String s) {
        if (s == null) {
            return null;
        }
        int mark = s.lastIndexOf("\n" + LUA51_TEXT);
        if (mark >= 0) {
            String head = s.substring(0, mark);
            String text = s.substring(mark + 1 + LUA51_TEXT.length());
            Matcher m = POSITION.matcher(head);
            return m.find() ? head.substring(0, m.end()) + text : text;
        }
        return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    }

    /** A LuaJ error message with its position and its type error written as Lua 5.1 writes them. */
    static String luaText(String message) {
        if (message == null) {
            return "nil";
        }
        Matcher m = POSITION.matcher(message);
        if (m.find()) {
            return m.group(1) + ":" + m.group(2) + ": " + typeError(message.substring(m.end()));
        }
        return typeError(message);
    }

    private static final Pattern CALL = Pattern.compile("^attempt to call (\\w+)$");
    private static final Pattern INDEX = Pattern.compile("^attempt to index \\? \\(a (\\w+) value\\)$");
    private static final Pattern CONCAT = Pattern.compile("^attempt to concatenate (\\w+) and (\\w+)$");
    private static final Pattern ARITH = Pattern.compile("^attempt to perform arithmetic __\\w+ on (\\w+) and (\\w+)$");
    private static final Pattern COMPARE = Pattern.compile("^attempt to compare __(?:lt|le) on (\\w+) and (\\w+)$");

    /**
     * LuaJ words its type errors its own way ("attempt to call nil"); Lua 5.1, without a variable's name to
     * give, says "attempt to call a nil value", naming the first operand of the wrong type. Scripts and tests
     * match on Lua 5.1's words.
     */
    static String typeError(String text) {
        if (!text.startsWith("attempt to ")) {
            return text;
        }
        Matcher m = CALL.matcher(text);
        if (m.matches()) {
            return "attempt to call a " + m.group(1) + " value";
        }
        m = INDEX.matcher(text);
        if (m.matches()) {
            return "attempt to index a " + m.group(1) + " value";
        }
        m = CONCAT.matcher(text);
        if (m.matches()) {
            return "attempt to concatenate a " + firstNotOf(m.group(1), m.group(2), "string", "number") + " value";
        }
        m = COMPARE.matcher(text);
        if (m.matches()) { // Lua 5.1's luaG_ordererror
            return m.group(1).equals(m.group(2)) ? "attempt to compare two " + m.group(1) + " values"
                    : "attempt to compare " + m.group(1) + " with " + m.group(2);
        }
        m = ARITH.matcher(text);
        if (m.matches()) {
            return "attempt to perform arithmetic on a " + firstNotOf(m.group(1), m.group(2), "number", "string") + " value";
        }
        return text;
    }

    private static String firstNotOf(String a, String b, String ok1, String ok2) {
        return a.equals(ok1) || a.equals(ok2) ? b : a;
    }

    /** The reply of a script that raised {@code e}, as Redis 7.0's error handler and luaCallFunction write it. */
    /**
     * A script whose allocation failed: Lua's memory error is a plain string, which Redis's luaCallFunction
     * reports as "Error running script name, message" (the sha, or the function's name for FCALL).
     */
    static String outOfMemory(String name) {
        return "ERR Error running script " + name + ", not enough memory";
    }

    static String scriptFailure(LuaError e, String sha) {
        return scriptFailure(e, sha, "user_script");
    }

    /** The same for a function ({@code name} its name, chunk {@code user_function}) or a script (its sha, {@code user_script}). */
    static String scriptFailure(LuaError e, String name, String chunk) {
        String sha = name;
        String full = chomp(e.getMessage());
        Matcher m = POSITION.matcher(full == null ? "" : full);
        String line = m.find() ? m.group(2) : null;
        LuaValue obj = e.getMessageObject();
        String text;
        if (obj != null && obj.istable()) {
            LuaValue err = obj.rawget("err");
            text = err.isstring() ? err.tojstring() : "ERR " + err.tojstring();
        } else if (obj != null && obj.isstring()) {
            text = "ERR " + luaText(chomp(obj.tojstring()));
        } else if (obj == null && e.getCause() != null) {
            text = "ERR " + luaText(full);
        } else {
            text = "ERR " + (obj == null ? luaText(full) : obj.tojstring());
        }
        return line == null ? text : text + " script: " + sha + ", on @" + chunk + ":" + line + ".";
    }
}
