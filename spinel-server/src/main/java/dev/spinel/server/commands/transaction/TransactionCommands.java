package dev.spinel.server.commands.transaction;

import dev.spinel.server.engine.CommandTable;

/**
 * MULTI, EXEC, DISCARD, WATCH, UNWATCH. The transaction machinery (queueing, atomic execution,
 * watch invalidation) lives in the engine, which owns dispatch.
 */
public final class TransactionCommands {
    private TransactionCommands() {
    }

    public static void register(CommandTable t) {
        // MULTI
        t.register("multi", (s, a) -> s.engine().transactions().multi(s));
        // EXEC
        t.register("exec", (s, a) -> s.engine().transactions().exec(s));
        // DISCARD
        t.register("discard", (s, a) -> s.engine().transactions().discard(s));
        // WATCH key [key ...]
        t.register("watch", (s, a) -> s.engine().transactions().watch(s, a));
        // UNWATCH
        t.register("unwatch", (s, a) -> s.engine().transactions().unwatch(s));
    }
}
