package dev.spinel.server;

import dev.spinel.protocol.Version;
import dev.spinel.server.log.Log;
import sun.misc.Signal;

import java.util.Map;

/**
 * Redis's crash report on SIGABRT (its sigsegvHandler): "crashed by signal" and the stacks, between the bug report's
 * START and END lines, then the process ends with the status of a death by that signal (134). Spinel has no C stack to print: the report holds
 * every Java thread's stack instead (an event loop stuck in a command shows where). SIGSEGV, SIGBUS and SIGFPE are the
 * JVM's own (it turns them into exceptions or its hs_err report) and are not handled here.
 *
 * <p>Thread-safety: runs once, on the thread the JVM starts for the signal; everything it reads is thread-safe
 * (the log, the threads' stacks).
 */
final class CrashReport {
    /** How long the report may take before the process dies anyway. */
    private static final long REPORT_MILLIS = 3_000;

    private CrashReport() {
    }

    /** Installs the handler of SIGABRT (the process's, so only the launcher calls this). */
    static void install() {
        Signal.handle(new Signal("ABRT"), CrashReport::report);
    }

    private static void report(Signal sig) {
        // Written by a thread of its own, waited for a bounded time: whatever the report meets, the process dies.
        Thread writer = new Thread(() -> write(sig), "spinel-crash-report");
        writer.setDaemon(true);
        writer.start();
        try {
            writer.join(REPORT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Redis dies by the signal itself; the JVM does not let it be raised again with its default action (checked by
        // hand), so the exit status a shell shows for a death by it: 128 + its number, no hook, no save.
        Runtime.getRuntime().halt(128 + sig.getNumber());
    }

    private static void write(Signal sig) {
        Log.raw("\n\n=== SPINEL BUG REPORT START: Cut & paste starting from here ===");
        Log.warning("Spinel " + Version.SPINEL + " crashed by signal: " + sig.getNumber() + ", si_code: 0");
        StringBuilder sb = new StringBuilder("\n------ STACK TRACE ------");
        for (Map.Entry<Thread, StackTraceElement[]> t : Thread.getAllStackTraces().entrySet()) {
            sb.append("\n\nThread \"").append(t.getKey().getName()).append("\" ").append(t.getKey().getState());
            for (StackTraceElement e : t.getValue()) {
                sb.append("\n    at ").append(e);
            }
        }
        Log.raw(sb.append("\n\n=== SPINEL BUG REPORT END. Make sure to include from START to END. ===\n").toString());
    }
}
