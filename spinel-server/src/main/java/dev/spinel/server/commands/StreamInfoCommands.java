package dev.spinel.server.commands;

import dev.spinel.server.engine.CommandTable;

final class StreamInfoCommands {
    private StreamInfoCommands() {
    }

    static void register(CommandTable t) {
    }
}
