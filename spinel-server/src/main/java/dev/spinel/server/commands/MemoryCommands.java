package dev.spinel.server.commands;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Errors;
import dev.spinel.server.engine.Session;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;

/**
 * MEMORY USAGE / HELP. The estimate is {@link MemoryUsage}'s (Redis's own accounting for strings).
 *
 * <p>Thread-safety: USAGE holds the key's segment lock while it reads the entry.
 */
final class MemoryCommands {
    private MemoryCommands() {
    }

    static void register(CommandTable t) {
        t.register("memory", (s, a) -> {
            throw Errors.SYNTAX;
        });
        t.registerSub("memory", "usage", MemoryCommands::usage);
        t.registerSub("memory", "help", MemoryCommands::help);
    }

    // MEMORY USAGE key [SAMPLES count]
    static void usage(Session s, Args a) {
        for (int i = 3; i < a.count(); i++) {
            if (a.is(i, "SAMPLES") && i + 1 < a.count()) {
                long samples;
                try {
                    samples = a.parseLong(i + 1);
                } catch (NumberFormatException e) {
                    throw Errors.NOT_INTEGER;
                }
                if (samples < 0) {
                    throw Errors.SYNTAX;
                }
                i++;
            } else {
                throw Errors.SYNTAX;
            }
        }
        int h = Keys.hash(a, 2);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            // Like Redis's dbFind: no lazy expiry and no hit/miss accounting.
            Entry e = seg.find(a.buffer(), a.offset(2), a.length(2), h);
            if (e == null) {
                s.out().nullBulk();
            } else {
                s.out().integer(MemoryUsage.of(e.key(), e.value()));
            }
        } finally {
            seg.unlock();
        }
    }

    // MEMORY HELP
    static void help(Session s, Args a) {
        Help.reply(s, "MEMORY",
                "USAGE <key> [SAMPLES <count>]",
                "    Return memory in bytes used by <key> and its value. Nested values are",
                "    sampled up to <count> times (default: 5, 0 means sample all).");
    }
}
