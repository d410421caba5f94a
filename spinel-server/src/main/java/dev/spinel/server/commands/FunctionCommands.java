package dev.spinel.server.commands;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Errors;
import dev.spinel.server.engine.RedisError;
import dev.spinel.server.engine.Session;

/**
 * FUNCTION FLUSH / LIST / HELP. Spinel runs EVAL scripts but has no Redis 7 functions, so FUNCTION LOAD
 * does not exist and no library can be loaded: LIST is truly empty and FLUSH has nothing to delete. Arguments are
 * checked exactly as Redis checks them.
 *
 * <p>Thread-safety: stateless.
 */
final class FunctionCommands {
    private FunctionCommands() {
    }

    static void register(CommandTable t) {
        t.register("function", (s, a) -> {
            throw Errors.SYNTAX;
        });
        t.registerSub("function", "flush", FunctionCommands::flush);
        t.registerSub("function", "list", FunctionCommands::list);
        t.registerSub("function", "help", FunctionCommands::help);
    }

    // FUNCTION FLUSH [ASYNC | SYNC]  (no function can be loaded: there is nothing to delete)
    static void flush(Session s, Args a) {
        if (a.count() > 3) {
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for '" + ServerCommands.truncate(a.string(1))
                    + "'. Try FUNCTION HELP.");
        }
        if (a.count() == 3 && !a.is(2, "ASYNC") && !a.is(2, "SYNC")) {
            throw new RedisError("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
        }
        s.out().ok();
    }

    // FUNCTION LIST [LIBRARYNAME library-name-pattern] [WITHCODE]  (no libraries exist: always empty)
    static void list(Session s, Args a) {
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
    static void help(Session s, Args a) {
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
}
