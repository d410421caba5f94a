package dev.spinel.server.log;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The server log, in Redis's line format ({@code pid:M dd Mon yyyy HH:mm:ss.SSS * message}), to
 * standard output or the {@code logfile}. Thread-safe: lines are written whole under a lock.
 */
public final class Log {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("dd MMM yyyy HH:mm:ss.SSS", Locale.ROOT);
    private static final long PID = ProcessHandle.current().pid();
    private static volatile PrintStream out = System.out;
    private static volatile int level = 2; // 0 debug, 1 verbose, 2 notice, 3 warning, 4 nothing

    private Log() {
    }

    public static void configure(String logfile, String loglevel) {
        level(loglevel);
        if (logfile != null && !logfile.isEmpty()) {
            try {
                out = new PrintStream(new FileOutputStream(logfile, true), true, StandardCharsets.UTF_8);
            } catch (IOException e) {
                System.err.println("Can't open the log file: " + e.getMessage());
            }
        }
    }

    /** Sets the level (CONFIG SET loglevel): debug, verbose, notice, warning or nothing. */
    public static void level(String loglevel) {
        level = switch (loglevel) {
            case "debug" -> 0;
            case "verbose" -> 1;
            case "warning" -> 3;
            case "nothing" -> 4;
            default -> 2;
        };
    }

    public static void debug(String msg) {
        write(0, '.', msg);
    }

    public static void verbose(String msg) {
        write(1, '-', msg);
    }

    public static void notice(String msg) {
        write(2, '*', msg);
    }

    public static void warning(String msg) {
        write(3, '#', msg);
    }

    /**
     * A warning from a signal's handler, in Redis's serverLogFromHandler format: {@code pid:signal-handler (unix
     * seconds) message}, without role or level mark.
     */
    public static synchronized void fromSignalHandler(String msg) {
        if (level <= 3) {
            out.println(PID + ":signal-handler (" + System.currentTimeMillis() / 1000 + ") " + msg);
        }
    }

    /** Text as it is, without a line prefix (Redis's serverLogRaw at warning level: the crash report's). */
    public static synchronized void raw(String text) {
        if (level <= 3) {
            out.println(text);
        }
    }

    /** Writes at a level named as in DEBUG LOG or config ("notice" default). */
    public static synchronized void write(int lvl, char mark, String msg) {
        if (lvl < level) {
            return;
        }
        out.println(PID + ":M " + LocalDateTime.now().format(TIME) + " " + mark + " " + msg);
    }
}
