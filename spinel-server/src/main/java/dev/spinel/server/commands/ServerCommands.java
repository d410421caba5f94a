package dev.spinel.server.commands;

import dev.spinel.protocol.Args;
import dev.spinel.server.Log;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Errors;
import dev.spinel.server.engine.RedisError;
import dev.spinel.server.engine.Session;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;

import java.time.Instant;

/**
 * Server commands: TIME, LASTSAVE, SHUTDOWN, DEBUG (LOG, SLEEP, HELP), FUNCTION FLUSH/LIST,
 * MEMORY USAGE/HELP. INFO is in {@link InfoCommand}, COMMAND in {@link CommandCommand}.
 *
 * <p>Thread-safety: stateless; each handler runs on its connection's event loop.
 */
public final class ServerCommands {
    private static final RedisError DEBUG_NOT_ALLOWED = new RedisError("ERR DEBUG command not allowed. If the "
            + "enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you "
            + "need to set this option in the configuration file, and then restart the server.");

    private ServerCommands() {
    }

    public static void register(CommandTable t, SpinelServer server) {
        t.register("time", ServerCommands::time);
        t.register("lastsave", ServerCommands::lastsave);
        t.register("shutdown", (s, a) -> shutdown(server, s, a));
        t.register("debug", ServerCommands::debug);
        t.register("function", (s, a) -> {
            throw Errors.SYNTAX;
        });
        t.registerSub("function", "flush", ServerCommands::functionFlush);
        t.registerSub("function", "list", ServerCommands::functionList);
        t.registerSub("function", "help", ServerCommands::functionHelp);
        t.register("memory", (s, a) -> {
            throw Errors.SYNTAX;
        });
        t.registerSub("memory", "usage", ServerCommands::memoryUsage);
        t.registerSub("memory", "help", ServerCommands::memoryHelp);
        InfoCommand.register(t, server);
        CommandCommand.register(t);
    }

    /** Whether the client is connected over loopback, for the "local" protected-action settings. */
    static boolean isLocal(Session s) {
        String addr = s.connection().remoteAddress();
        return addr.startsWith("127.") || addr.startsWith("[::1]") || addr.startsWith("::1")
                || addr.startsWith("0:0:0:0:0:0:0:1") || addr.startsWith("[0:0:0:0:0:0:0:1]");
    }

    // TIME
    static void time(Session s, Args a) {
        Instant now = Instant.now();
        s.out().array(2);
        s.out().bulk(now.getEpochSecond());
        s.out().bulk(now.getNano() / 1000);
    }

    // LASTSAVE  (no snapshot has been taken: Redis reports the start time then too)
    static void lastsave(Session s, Args a) {
        s.out().integer(s.engine().stats().startMillis / 1000);
    }

    // SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT]
    static void shutdown(SpinelServer server, Session s, Args a) {
        boolean nosave = false;
        boolean save = false;
        boolean force = false;
        boolean abort = false;
        boolean other = false;
        for (int i = 1; i < a.count(); i++) {
            if (a.is(i, "NOSAVE")) {
                nosave = true;
            } else if (a.is(i, "SAVE")) {
                save = true;
            } else if (a.is(i, "NOW")) {
                other = true;
            } else if (a.is(i, "FORCE")) {
                force = true;
            } else if (a.is(i, "ABORT")) {
                abort = true;
            } else {
                throw Errors.SYNTAX;
            }
        }
        if ((abort && (nosave || save || force || other)) || (nosave && save)) {
            throw Errors.SYNTAX;
        }
        if (abort) {
            // A shutdown here is immediate, so there is never one in progress to abort.
            throw new RedisError("ERR No shutdown in progress.");
        }
        boolean wantsSnapshot = save || (!nosave && !s.engine().config().save.points().isEmpty());
        if (wantsSnapshot) {
            // Redis would write an RDB here; Spinel has no snapshots yet, so that save fails like a failed rdbSave.
            Log.warning("Error trying to save the DB: snapshots are not implemented in Spinel yet"
                    + (force ? "; exiting anyway (FORCE)." : ". Use SHUTDOWN NOSAVE, or FORCE to exit anyway."));
            if (!force) {
                throw new RedisError("ERR Errors trying to SHUTDOWN. Check logs.");
            }
        }
        Log.warning("User requested shutdown...");
        // Redis exits without replying; the connection closes with the server.
        s.closeAfterReply();
        server.shutdownAsync();
    }

    // DEBUG subcommand [argument ...]
    static void debug(Session s, Args a) {
        switch (s.engine().config().enableDebugCommand.value()) {
            case "yes" -> { }
            case "local" -> {
                if (!isLocal(s)) {
                    throw DEBUG_NOT_ALLOWED;
                }
            }
            default -> throw DEBUG_NOT_ALLOWED;
        }
        if (a.count() == 2 && a.is(1, "HELP")) {
            Help.reply(s, "DEBUG",
                    "LOG <message>",
                    "    Write <message> to the server log.",
                    "SLEEP <seconds>",
                    "    Stop the server for <seconds>. Decimals allowed.");
        } else if (a.count() == 3 && a.is(1, "LOG")) {
            Log.warning("DEBUG LOG: " + a.string(2));
            s.out().ok();
        } else if (a.count() == 3 && a.is(1, "SLEEP")) {
            debugSleep(s, a.string(2));
        } else {
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for '"
                    + truncate(a.string(1)) + "'. Try DEBUG HELP.");
        }
    }

    /**
     * DEBUG SLEEP blocks the whole server in Redis; here it blocks the calling client's event loop
     * (and the clients that share it), never the other loops. The argument is read like C's strtod:
     * a leading number, anything unparsable counting as 0.
     */
    private static void debugSleep(Session s, String arg) {
        double seconds = leadingDouble(arg);
        long micros = (long) (seconds * 1_000_000);
        if (micros > 0) {
            try {
                Thread.sleep(micros / 1000, (int) (micros % 1000) * 1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        s.out().ok();
    }

    private static double leadingDouble(String s) {
        String t = s.stripLeading();
        for (int end = t.length(); end > 0; end--) {
            try {
                String part = t.substring(0, end);
                if (Character.isLetter(part.charAt(part.length() - 1)) && !part.toLowerCase().endsWith("inf")) {
                    continue;
                }
                return Double.parseDouble(part);
            } catch (NumberFormatException e) {
                // try a shorter prefix, as strtod stops at the first character it cannot use
            }
        }
        return 0;
    }

    // FUNCTION FLUSH [ASYNC | SYNC]  (no function can be loaded: there is nothing to delete)
    static void functionFlush(Session s, Args a) {
        if (a.count() > 3) {
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for '" + truncate(a.string(1))
                    + "'. Try FUNCTION HELP.");
        }
        if (a.count() == 3 && !a.is(2, "ASYNC") && !a.is(2, "SYNC")) {
            throw new RedisError("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
        }
        s.out().ok();
    }

    // FUNCTION LIST [LIBRARYNAME library-name-pattern] [WITHCODE]  (no libraries exist: always empty)
    static void functionList(Session s, Args a) {
        boolean withCode = false;
        boolean libraryName = false;
        for (int i = 2; i < a.count(); i++) {
            if (!withCode && a.is(i, "WITHCODE")) {
                withCode = true;
            } else if (!libraryName && a.is(i, "LIBRARYNAME")) {
                if (i + 1 >= a.count()) {
                    throw new RedisError("ERR library name argument was not given");
                }
                libraryName = true;
                i++;
            } else {
                throw new RedisError("ERR Unknown argument " + a.string(i));
            }
        }
        s.out().array(0);
    }

    // FUNCTION HELP
    static void functionHelp(Session s, Args a) {
        Help.reply(s, "FUNCTION",
                "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
                "    Return general information on all the libraries:",
                "    * Library name",
                "    * The engine used to run the Library",
                "    * Library description",
                "    * Functions list",
                "    * Library code (if WITHCODE is given)",
                "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
                "FLUSH [ASYNC|SYNC]",
                "    Delete all the libraries.",
                "    When called without the optional mode argument, the behavior is determined by the",
                "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
                "    * ASYNC: Asynchronously flush the libraries.",
                "    * SYNC: Synchronously flush the libraries.");
    }

    // MEMORY USAGE key [SAMPLES count]
    static void memoryUsage(Session s, Args a) {
        for (int i = 3; i < a.count(); i++) {
            if (a.is(i, "SAMPLES") && i + 1 < a.count()) {
                long samples;
                try {
                    samples = a.parseLong(i + 1);
                } catch (NumberFormatException e) {
                    throw Errors.NOT_INTEGER;
                }
                if (samples < 0) {
                    throw Errors.SYNTAX;
                }
                i++;
            } else {
                throw Errors.SYNTAX;
            }
        }
        int h = Keys.hash(a, 2);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            // Like Redis's dbFind: no lazy expiry and no hit/miss accounting.
            Entry e = seg.find(a.buffer(), a.offset(2), a.length(2), h);
            if (e == null) {
                s.out().nullBulk();
            } else {
                s.out().integer(MemoryUsage.of(e.key(), e.value()));
            }
        } finally {
            seg.unlock();
        }
    }

    // MEMORY HELP
    static void memoryHelp(Session s, Args a) {
        Help.reply(s, "MEMORY",
                "USAGE <key> [SAMPLES <count>]",
                "    Return memory in bytes used by <key> and its value. Nested values are",
                "    sampled up to <count> times (default: 5, 0 means sample all).");
    }

    private static String truncate(String v) {
        return v.length() > 128 ? v.substring(0, 128) : v;
    }
}
