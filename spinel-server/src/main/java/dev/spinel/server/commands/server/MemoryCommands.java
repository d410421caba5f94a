package dev.spinel.server.commands.server;

import dev.spinel.protocol.Args;
import dev.spinel.server.commands.common.Help;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.clients.MemoryAccounting;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.scripting.Scripting;
import dev.spinel.store.Entry;
import dev.spinel.store.GrowableString;
import dev.spinel.store.Segment;

/**
 * MEMORY USAGE / STATS / DOCTOR / PURGE / MALLOC-STATS / HELP. The estimate is {@link MemoryUsage}'s (Redis's
 * own accounting for strings). STATS reports {@code MemoryAccounting}'s used_memory and its parts (start-up
 * baseline, clients, scripts, replication backlog, dataset), with 0 for the hash tables' overheads it does
 * not count apart.
 *
 * <p>Thread-safety: USAGE holds the key's segment lock while it reads the entry.
 */
final class MemoryCommands {
    private MemoryCommands() {
    }

    static void register(CommandTable t, Scripting scripting) {
        t.register("memory", (s, a) -> {
            throw Errors.SYNTAX;
        });
        t.registerSub("memory", "usage", MemoryCommands::usage);
        t.registerSub("memory", "help", MemoryCommands::help);
        t.registerSub("memory", "stats", (s, a) -> stats(scripting, s, a));
        t.registerSub("memory", "doctor", MemoryCommands::doctor);
        t.registerSub("memory", "purge", (s, a) -> s.out().ok());
        // What Redis answers when not built with jemalloc: there is no allocator report to give.
        t.registerSub("memory", "malloc-stats", (s, a) -> s.out().bulk("Stats not supported for the current allocator"));
    }

    // MEMORY STATS
    static void stats(Scripting scripting, Session s, Args a) {
        var keyspace = s.engine().keyspace();
        MemoryAccounting m = s.engine().memory();
        long dataset = m.dataset();
        long overhead = m.overhead();
        long used = overhead + dataset;
        long startup = m.startup();
        long rss = InfoCommand.rss();
        long keys = 0;
        int nonEmpty = 0;
        for (int i = 0; i < keyspace.databases(); i++) {
            long n = keyspace.db(i).size();
            keys += n;
            if (n > 0) {
                nonEmpty++;
            }
        }
        var out = s.out();
        out.map(27 + nonEmpty);
        out.bulk("peak.allocated").integer(used);
        out.bulk("total.allocated").integer(used);
        out.bulk("startup.allocated").integer(startup);
        out.bulk("replication.backlog").integer(m.replicationBacklog());
        out.bulk("clients.slaves").integer(m.replicaOutputs());
        out.bulk("clients.normal").integer(m.clients());
        out.bulk("cluster.links").integer(0);
        out.bulk("aof.buffer").integer(0);
        out.bulk("lua.caches").integer(scripting.cache().memory());
        out.bulk("functions.caches").integer(scripting.functions().codeBytes());
        for (int i = 0; i < keyspace.databases(); i++) {
            if (keyspace.db(i).size() > 0) {
                out.bulk("db." + i).map(3);
                out.bulk("overhead.hashtable.main").integer(0);
                out.bulk("overhead.hashtable.expires").integer(0);
                out.bulk("overhead.hashtable.slot-to-keys").integer(0);
            }
        }
        out.bulk("overhead.total").integer(overhead);
        out.bulk("keys.count").integer(keys);
        out.bulk("keys.bytes-per-key").integer(keys == 0 ? 0 : (used - startup) / keys);
        out.bulk("dataset.bytes").integer(dataset);
        out.bulk("dataset.percentage").doubleValue(used <= startup ? 0 : dataset * 100.0 / (used - startup));
        out.bulk("peak.percentage").doubleValue(100);
        out.bulk("allocator.allocated").integer(used);
        out.bulk("allocator.active").integer(used);
        out.bulk("allocator.resident").integer(rss);
        out.bulk("allocator-fragmentation.ratio").doubleValue(1);
        out.bulk("allocator-fragmentation.bytes").integer(0);
        out.bulk("allocator-rss.ratio").doubleValue(used == 0 ? 0 : rss / (double) used);
        out.bulk("allocator-rss.bytes").integer(rss - used);
        out.bulk("rss-overhead.ratio").doubleValue(1);
        out.bulk("rss-overhead.bytes").integer(0);
        out.bulk("fragmentation").doubleValue(used == 0 ? 0 : rss / (double) used);
        out.bulk("fragmentation.bytes").integer(rss - used);
    }

    /**
     * MEMORY DOCTOR: Redis's report for an instance under 5 MB, or its all-clear. Redis's other findings
     * (fragmentation, big peaks, client buffers) concern allocator and buffer figures Spinel does not keep.
     */
    static void doctor(Session s, Args a) {
        if (s.engine().memory().used() < 5L * 1024 * 1024) { // Redis reads its whole used_memory
            s.out().verbatim("Hi Sam, this instance is empty or is using very little memory, my issues detector can't be "
                    + "used in these conditions. Please, leave for your mission on Earth and fill it with some data. "
                    + "The new Sam and I will be back to our programming as soon as I finished rebooting.\n");
        } else {
            s.out().verbatim("Hi Sam, I can't find any memory issue in your instance. I can only account for what "
                    + "occurs on this base.\n");
        }
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
                Object stored = e.storedValue(); // a string changed in place counts its capacity, not a trimmed copy
                s.out().integer(MemoryUsage.of(e.key(), stored instanceof GrowableString ? stored : e.value()));
            }
        } finally {
            seg.unlock();
        }
    }

    // MEMORY HELP
    static void help(Session s, Args a) {
        Help.reply(s, "MEMORY",
                "DOCTOR",
                "    Return memory problems reports.",
                "MALLOC-STATS",
                "    Return internal statistics report from the memory allocator.",
                "PURGE",
                "    Attempt to purge dirty pages for reclamation by the allocator.",
                "STATS",
                "    Return information about the memory usage of the server.",
                "USAGE <key> [SAMPLES <count>]",
                "    Return memory in bytes used by <key> and its value. Nested values are",
                "    sampled up to <count> times (default: 5, 0 means sample all).");
    }
}
