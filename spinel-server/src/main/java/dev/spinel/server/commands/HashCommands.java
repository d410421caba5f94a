package dev.spinel.server.commands;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.engine.CommandTable;

/** Placeholder registration; the family is filled in by its own change. */
public final class HashCommands {
    private HashCommands() {
    }

    public static void register(CommandTable t, SpinelServer server) {
    }
}
