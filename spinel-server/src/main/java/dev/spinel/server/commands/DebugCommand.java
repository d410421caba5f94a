package dev.spinel.server.commands;

import dev.spinel.protocol.Args;
import dev.spinel.server.Log;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.RedisError;
import dev.spinel.server.engine.Session;

/**
 * DEBUG LOG / SLEEP / HELP, allowed as the immutable {@code enable-debug-command} says (no, yes,
 * local), with Redis 7.0's refusal text. Other DEBUG subcommands answer Redis's unknown-subcommand error.
 *
 * <p>Thread-safety: stateless.
 */
final class DebugCommand {
    private static final RedisError DEBUG_NOT_ALLOWED = new RedisError("ERR DEBUG command not allowed. If the "
            + "enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you "
            + "need to set this option in the configuration file, and then restart the server.");

    private DebugCommand() {
    }

    static void register(CommandTable t) {
        t.register("debug", DebugCommand::debug);
    }

    // DEBUG subcommand [argument ...]
    static void debug(Session s, Args a) {
        switch (s.engine().config().enableDebugCommand.value()) {
            case "yes" -> { }
            case "local" -> {
                if (!ServerCommands.isLocal(s)) {
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
                    + ServerCommands.truncate(a.string(1)) + "'. Try DEBUG HELP.");
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
}
