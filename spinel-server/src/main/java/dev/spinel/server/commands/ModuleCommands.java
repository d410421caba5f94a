package dev.spinel.server.commands;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Errors;
import dev.spinel.server.engine.RedisError;
import dev.spinel.server.engine.Session;

/**
 * MODULE (Spinel loads no modules: LIST is empty, LOAD/LOADEX fail as a module that cannot be loaded does in
 * Redis, after the {@code enable-module-command} check) and LOLWUT (its version line; the art of versions 5
 * and 6 is not drawn).
 *
 * <p>Thread-safety: stateless.
 */
final class ModuleCommands {
    private static final RedisError MODULE_NOT_ALLOWED = new RedisError("ERR MODULE command not allowed. If the "
            + "enable-module-command option is set to \"local\", you can run it from a local connection, otherwise you "
            + "need to set this option in the configuration file, and then restart the server.");

    private ModuleCommands() {
    }

    static void register(CommandTable t) {
        t.register("module", null);
        t.registerSub("module", "list", (s, a) -> s.out().array(0));
        t.registerSub("module", "load", (s, a) -> load(s));
        t.registerSub("module", "loadex", (s, a) -> load(s));
        t.registerSub("module", "unload", (s, a) -> {
            allowed(s);
            throw new RedisError("ERR Error unloading module: no such module with that name");
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
        t.register("lolwut", ModuleCommands::lolwut);
    }

    private static void allowed(Session s) {
        switch (s.engine().config().param("enable-module-command").get()) {
            case "yes" -> { }
            case "local" -> {
                if (!ServerCommands.isLocal(s)) {
                    throw MODULE_NOT_ALLOWED;
                }
            }
            default -> throw MODULE_NOT_ALLOWED;
        }
    }

    private static void load(Session s) {
        allowed(s);
        throw new RedisError("ERR Error loading the extension. Please check the server logs.");
    }

    // LOLWUT [VERSION version]
    static void lolwut(Session s, Args a) {
        if (a.count() >= 3 && a.is(1, "VERSION")) {
            try {
                a.parseLong(2);
            } catch (NumberFormatException e) {
                throw Errors.NOT_INTEGER;
            }
        }
        s.out().verbatim("Redis ver. " + dev.spinel.server.SpinelServer.REDIS_VERSION + "\n");
    }
}
