package dev.spinel.server.commands.server;

import dev.spinel.protocol.Args;
import dev.spinel.server.commands.common.Help;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.log.Log;

/**
 * MODULE LIST / LOAD / LOADEX / UNLOAD / HELP. Spinel runs on the JVM and cannot load Redis modules
 * (shared libraries written against Redis's C API), so no module is ever loaded: LIST is empty, LOAD and
 * LOADEX fail with Redis's own error for a library that does not load (after the same
 * {@code enable-module-command} check), UNLOAD finds no such module.
 *
 * <p>Thread-safety: stateless.
 */
public final class ModuleCommands {
    private static final RedisError NOT_ALLOWED = new RedisError("ERR MODULE command not allowed. If the "
            + "enable-module-command option is set to \"local\", you can run it from a local connection, otherwise you "
            + "need to set this option in the configuration file, and then restart the server.");
    private static final RedisError LOAD_FAILED = new RedisError("ERR Error loading the extension. Please check the server logs.");
    private static final RedisError NO_SUCH_MODULE = new RedisError("ERR Error unloading module: no such module with that name");

    private ModuleCommands() {
    }

    public static void register(CommandTable t) {
        t.register("module", (s, a) -> {
            throw Errors.SYNTAX; // the container itself: subcommands are dispatched before it
        });
        t.registerSub("module", "list", (s, a) -> s.out().array(0));
        t.registerSub("module", "load", ModuleCommands::load);
        t.registerSub("module", "loadex", ModuleCommands::load);
        t.registerSub("module", "unload", (s, a) -> {
            allowed(s);
            throw NO_SUCH_MODULE;
        });
        t.registerSub("module", "help", (s, a) -> Help.reply(s, "MODULE",
                "LIST",
                "    Return a list of loaded modules.",
                "LOAD <path> [<arg> ...]",
                "    Load a module library from <path>, passing to it any optional arguments.",
                "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
                "    Load a module library from <path>, while passing it module configurations and optional arguments.",
                "UNLOAD <name>",
                "    Unload a module."));
    }

    // MODULE LOAD path [arg ...] | MODULE LOADEX path [CONFIG name value ...] [ARGS arg ...]
    private static void load(Session s, Args a) {
        allowed(s);
        // Redis logs why dlopen failed; this is why any library fails here.
        Log.warning("Module " + a.string(2) + " failed to load: Spinel cannot load Redis modules");
        throw LOAD_FAILED;
    }

    private static void allowed(Session s) {
        switch (s.engine().config().enableModuleCommand.value()) {
            case "yes" -> { }
            case "local" -> {
                if (!ServerCommands.isLocal(s)) {
                    throw NOT_ALLOWED;
                }
            }
            default -> throw NOT_ALLOWED;
        }
    }
}
