package dev.spinel.server.commands;

import dev.spinel.server.engine.CommandTable;

final class StreamGroupCommands {
    private StreamGroupCommands() {
    }

    static void register(CommandTable t) {
    }
}
