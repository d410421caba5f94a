package dev.spinel.server.commands.scripting;

import dev.spinel.persistence.DumpPayload;
import dev.spinel.persistence.FunctionsPayload;
import dev.spinel.persistence.RdbException;
import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.common.Help;
import dev.spinel.server.commands.server.ServerCommands;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.scripting.FunctionError;
import dev.spinel.server.scripting.FunctionLibraries;
import dev.spinel.server.scripting.Scripting;
import dev.spinel.store.Glob;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * FUNCTION LOAD / DELETE / FLUSH / LIST / DUMP / RESTORE / STATS / KILL / HELP (Redis 7.0 functions).
 * The libraries are {@link FunctionLibraries}; changes are made under every stripe
 * ({@link Scripting#changeFunctions}) and count as writes, so the append-only log records these commands
 * as received (and snapshots take the libraries with the keys). Arguments are checked, and errors worded,
 * as Redis does.
 *
 * <p>Thread-safety: stateless.
 */
public final class FunctionCommands {
    private FunctionCommands() {
    }

    public static void register(CommandTable t, Scripting scripting) {
        t.register("function", (s, a) -> {
            throw Errors.SYNTAX;
        });
        t.registerSub("function", "load", (s, a) -> load(scripting, s, a));
        t.registerSub("function", "delete", (s, a) -> delete(scripting, s, a));
        t.registerSub("function", "flush", (s, a) -> flush(scripting, s, a));
        t.registerSub("function", "list", (s, a) -> list(scripting, s, a));
        t.registerSub("function", "dump", (s, a) -> dump(scripting, s, a));
        t.registerSub("function", "restore", (s, a) -> restore(scripting, s, a));
        t.registerSub("function", "stats", (s, a) -> stats(scripting, s, a));
        t.registerSub("function", "kill", (s, a) -> kill(scripting, s, a));
        t.registerSub("function", "help", FunctionCommands::help);
    }

    private static RedisError error(FunctionError e) {
        return new RedisError("ERR " + e.getMessage());
    }

    // FUNCTION LOAD [REPLACE] function-code
    static void load(Scripting scripting, Session s, Args a) {
        boolean replace = false;
        int i = 2;
        while (i < a.count() - 1) {
            if (a.is(i, "REPLACE")) {
                replace = true;
                i++;
                continue;
            }
            throw new RedisError("ERR Unknown option given: " + a.cString(i));
        }
        if (i >= a.count()) {
            throw new RedisError("ERR Function code is missing");
        }
        boolean r = replace;
        byte[] code = a.copy(i);
        String name;
        try {
            name = scripting.changeFunctions(s, f -> f.load(code, r));
        } catch (FunctionError e) {
            throw error(e);
        }
        s.dirty(1);
        s.out().bulk(name);
    }

    // FUNCTION DELETE library-name
    static void delete(Scripting scripting, Session s, Args a) {
        String name = a.string(2);
        if (!scripting.changeFunctions(s, f -> f.delete(name))) {
            throw new RedisError("ERR Library not found");
        }
        s.dirty(1);
        s.out().ok();
    }

    // FUNCTION FLUSH [ASYNC | SYNC]
    static void flush(Scripting scripting, Session s, Args a) {
        if (a.count() > 3) {
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for '" + ServerCommands.truncate(a.cString(1))
                    + "'. Try FUNCTION HELP.");
        }
        if (a.count() == 3 && !a.is(2, "ASYNC") && !a.is(2, "SYNC")) {
            throw new RedisError("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
        }
        scripting.changeFunctions(s, f -> {
            f.flush();
            return null;
        });
        s.dirty(1);
        s.out().ok();
    }

    // FUNCTION LIST [LIBRARYNAME library-name-pattern] [WITHCODE]
    static void list(Scripting scripting, Session s, Args a) {
        boolean withCode = false;
        byte[] pattern = null;
        for (int i = 2; i < a.count(); i++) {
            if (!withCode && a.is(i, "WITHCODE")) {
                withCode = true;
            } else if (pattern == null && a.is(i, "LIBRARYNAME")) {
                if (i + 1 >= a.count()) {
                    throw new RedisError("ERR library name argument was not given");
                }
                pattern = a.copy(++i);
            } else {
                throw new RedisError("ERR Unknown argument " + a.cString(i));
            }
        }
        byte[] p = pattern;
        boolean code = withCode;
        scripting.changeFunctions(s, f -> {
            List<FunctionLibraries.Library> libs = new ArrayList<>();
            for (FunctionLibraries.Library lib : f.libraries()) {
                if (p == null || Glob.matches(p, lib.name().getBytes(StandardCharsets.UTF_8), true)) {
                    libs.add(lib);
                }
            }
            ReplyBuffer out = s.out();
            out.array(libs.size());
            for (FunctionLibraries.Library lib : libs) {
                out.map(code ? 4 : 3);
                out.bulk("library_name").bulk(lib.name());
                out.bulk("engine").bulk("LUA");
                out.bulk("functions").array(lib.functions().size());
                for (FunctionLibraries.Function fn : lib.functions()) {
                    out.map(3);
                    out.bulk("name").bulk(fn.name());
                    out.bulk("description");
                    if (fn.description() == null) {
                        out.nullBulk();
                    } else {
                        out.bulk(fn.description());
                    }
                    out.bulk("flags");
                    out.set(Integer.bitCount(fn.flags()));
                    for (int b = 0; b < FunctionLibraries.FLAGS.size(); b++) {
                        if ((fn.flags() & (1 << b)) != 0) {
                            out.simple(FunctionLibraries.FLAGS.get(b));
                        }
                    }
                }
                if (code) {
                    out.bulk("library_code").bulk(lib.code());
                }
            }
            return null;
        });
    }

    // FUNCTION DUMP
    static void dump(Scripting scripting, Session s, Args a) {
        s.out().bulk(FunctionsPayload.create(scripting.functions().codes()));
    }

    // FUNCTION RESTORE serialized-value [FLUSH | APPEND | REPLACE]
    static void restore(Scripting scripting, Session s, Args a) {
        if (a.count() > 4) {
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for '" + ServerCommands.truncate(a.cString(1))
                    + "'. Try FUNCTION HELP.");
        }
        FunctionLibraries.RestorePolicy policy = FunctionLibraries.RestorePolicy.APPEND;
        if (a.count() == 4) {
            if (a.is(3, "APPEND")) {
                policy = FunctionLibraries.RestorePolicy.APPEND;
            } else if (a.is(3, "REPLACE")) {
                policy = FunctionLibraries.RestorePolicy.REPLACE;
            } else if (a.is(3, "FLUSH")) {
                policy = FunctionLibraries.RestorePolicy.FLUSH;
            } else {
                throw new RedisError("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
            }
        }
        byte[] payload = a.copy(2);
        if (!DumpPayload.verify(payload)) {
            throw new RedisError("ERR DUMP payload version or checksum are wrong");
        }
        List<byte[]> codes;
        try {
            codes = FunctionsPayload.read(payload);
        } catch (RdbException e) {
            throw new RedisError("ERR " + e.getMessage());
        }
        FunctionLibraries.RestorePolicy p = policy;
        try {
            scripting.changeFunctions(s, f -> {
                f.restore(codes, p);
                return null;
            });
        } catch (FunctionError e) {
            throw error(e);
        }
        s.dirty(1);
        s.out().ok();
    }

    // FUNCTION STATS  (running_script: the function FCALL runs; null also while an EVAL script runs)
    static void stats(Scripting scripting, Session s, Args a) {
        FunctionLibraries f = scripting.functions();
        Scripting.RunningFunction running = scripting.runningFunction();
        ReplyBuffer out = s.out();
        out.map(2);
        out.bulk("running_script");
        if (running == null) {
            out.nullBulk();
        } else {
            out.map(3);
            out.bulk("name").bulk(running.name());
            out.bulk("command").array(running.command().length);
            for (byte[] arg : running.command()) {
                out.bulk(arg);
            }
            out.bulk("duration_ms").integer((System.nanoTime() - running.startedNanos()) / 1_000_000);
        }
        out.bulk("engines").map(1);
        out.bulk("LUA").map(2);
        out.bulk("libraries_count").integer(f.codes().size());
        out.bulk("functions_count").integer(f.functionCount());
    }

    // FUNCTION KILL
    static void kill(Scripting scripting, Session s, Args a) {
        switch (scripting.kill(true)) {
            case NOT_BUSY -> throw new RedisError("NOTBUSY No scripts in execution right now.");
            case UNKILLABLE -> throw new RedisError("UNKILLABLE Sorry the script already executed write commands against the dataset."
                    + " You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.");
            case WRONG_KIND -> throw new RedisError("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
            case KILLED -> s.out().ok();
        }
    }

    // FUNCTION HELP
    static void help(Session s, Args a) {
        Help.reply(s, "FUNCTION",
                "LOAD [REPLACE] <FUNCTION CODE>",
                "    Create a new library with the given library name and code.",
                "DELETE <LIBRARY NAME>",
                "    Delete the given library.",
                "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
                "    Return general information on all the libraries:",
                "    * Library name",
                "    * The engine used to run the Library",
                "    * Library description",
                "    * Functions list",
                "    * Library code (if WITHCODE is given)",
                "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
                "STATS",
                "    Return information about the current function running:",
                "    * Function name",
                "    * Command used to run the function",
                "    * Duration in MS that the function is running",
                "    If no function is running, return nil",
                "    In addition, returns a list of available engines.",
                "KILL",
                "    Kill the current running function.",
                "FLUSH [ASYNC|SYNC]",
                "    Delete all the libraries.",
                "    When called without the optional mode argument, the behavior is determined by the",
                "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
                "    * ASYNC: Asynchronously flush the libraries.",
                "    * SYNC: Synchronously flush the libraries.",
                "DUMP",
                "    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
                "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
                "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
                "    control how to handle existing libraries (default APPEND):",
                "    * FLUSH: delete all existing libraries.",
                "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
                "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
                "      libraries with the new libraries (notice that even on this option there is a chance of failure",
                "      in case of functions name collision with another library).");
    }
}
