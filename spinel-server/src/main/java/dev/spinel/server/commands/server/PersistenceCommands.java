package dev.spinel.server.commands.server;

import java.io.IOException;

import dev.spinel.protocol.Args;
import dev.spinel.server.durability.Persistence;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;

/**
 * Snapshot commands (Redis's rdb.c): SAVE, BGSAVE, LASTSAVE. The work is in {@link Persistence}.
 * SAVE writes on the calling event loop, blocking that loop's clients as Redis's SAVE blocks the
 * server; BGSAVE runs on its own thread.
 */
public final class PersistenceCommands {
    private PersistenceCommands() {
    }

    public static void register(CommandTable t, Persistence persistence) {
        Persistence p = persistence;
        t.register("save", (s, a) -> save(p, s));
        t.register("bgsave", (s, a) -> bgsave(p, s, a));
        t.register("lastsave", (s, a) -> s.out().integer(p.lastSave()));
        t.register("bgrewriteaof", (s, a) -> bgrewriteaof(p, s));
    }

    // SAVE
    static void save(Persistence p, Session s) {
        boolean ok;
        try {
            ok = p.save();
        } catch (IllegalStateException e) {
            throw new RedisError("ERR Background save already in progress");
        }
        if (!ok) {
            throw new RedisError("ERR");
        }
        s.out().ok();
    }

    // BGREWRITEAOF
    static void bgrewriteaof(Persistence p, Session s) {
        if (p.rewriteInProgress()) {
            throw new RedisError("ERR Background append only file rewriting already in progress");
        }
        if (p.scheduleRewriteIfSaving()) { // Redis waits for its BGSAVE child to end
            s.out().simple("Background append only file rewriting scheduled");
            return;
        }
        boolean started;
        try {
            started = p.rewriteAof();
        } catch (IOException | RuntimeException e) {
            throw new RedisError("ERR Can't rewrite append only file in background: " + e.getMessage());
        }
        if (!started) {
            throw new RedisError("ERR Background append only file rewriting already in progress");
        }
        // Inside EXEC Redis only schedules the rewrite (its cron starts it) and says so; Spinel's has started.
        s.out().simple(s.executingTransaction() ? "Background append only file rewriting scheduled"
                : "Background append only file rewriting started");
    }

    // BGSAVE [SCHEDULE]
    static void bgsave(Persistence p, Session s, Args a) {
        if (a.count() > 1 && !(a.count() == 2 && a.is(1, "SCHEDULE"))) {
            throw Errors.SYNTAX;
        }
        switch (p.bgsave(s.executingTransaction())) {
            case STARTED -> s.out().simple("Background saving started");
            case SCHEDULED -> s.out().simple("Background saving scheduled");
            case ALREADY_IN_PROGRESS -> throw new RedisError("ERR Background save already in progress");
        }
    }
}
