package dev.spinel.server.commands.key;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;

/**
 * Whole-database commands (Redis's db.c): SWAPDB, FLUSHDB, FLUSHALL.
 *
 * <p>Thread-safety: stateless; each command holds every stripe of the databases it changes while it
 * changes them ({@code Keyspace.swap}, {@code Database.clear}, {@code Keyspace.clearAll}), so other
 * clients see all or nothing.
 */
final class DatabaseCommands {
    private static final RedisError FIRST_DB = new RedisError("ERR invalid first DB index");
    private static final RedisError SECOND_DB = new RedisError("ERR invalid second DB index");

    private DatabaseCommands() {
    }

    static void register(CommandTable t) {
        t.register("swapdb", DatabaseCommands::swapdb);
        t.register("flushdb", DatabaseCommands::flushdb);
        t.register("flushall", DatabaseCommands::flushall);
    }

    // SWAPDB index1 index2
    static void swapdb(Session s, Args a) {
        if (s.engine().config().clusterEnabled.value()) {
            throw new RedisError("ERR SWAPDB is not allowed in cluster mode");
        }
        int first = dbIndex(a, 1, FIRST_DB);
        int second = dbIndex(a, 2, SECOND_DB);
        int n = s.engine().keyspace().databases();
        if (first < 0 || first >= n || second < 0 || second >= n) {
            throw Errors.DB_INDEX;
        }
        // Recorded under the stripes so that WATCH invalidation reaches any EXEC before it can run.
        // Waiters of both databases may now find data (Redis's scanDatabaseForReadyKeys).
        s.engine().keyspace().swap(first, second, () -> {
            // Redis's touchAllWatchedKeysInDb both ways: a watched key changes if either database held it
            // (none when a database is swapped with itself: Redis returns before)
            if (second != first) {
                var ks = s.engine().keyspace();
                s.engine().watches().touchPresent(first, ks.db(second), ks.db(first));
                s.engine().watches().touchPresent(second, ks.db(first), ks.db(second));
            }
            s.dirty(1);
            s.engine().blocking().signalDatabase(first);
            s.engine().blocking().signalDatabase(second);
        });
        s.out().ok();
    }

    private static int dbIndex(Args a, int i, RedisError invalid) {
        try {
            long v = a.parseLong(i);
            if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                throw invalid;
            }
            return (int) v;
        } catch (NumberFormatException e) {
            throw invalid;
        }
    }

    // FLUSHDB [ASYNC | SYNC]
    static void flushdb(Session s, Args a) {
        boolean async = flushAsync(s, a);
        var db = s.db();
        db.clear(() -> s.engine().watches().touchPresent(db.index(), db, null), removed -> {
            // at least one change, so that an empty FLUSHDB reaches the log and replicas too (Redis forces its propagation)
            s.dirty(Math.max(removed, 1));
            if (async) {
                s.engine().stats().lazyfreedObjects.add(removed); // Redis's emptyDbAsync counts every key
            }
        });
        s.out().ok();
    }

    // FLUSHALL [ASYNC | SYNC]
    static void flushall(Session s, Args a) {
        boolean async = flushAsync(s, a);
        var ks = s.engine().keyspace();
        ks.clearAll(() -> {
            for (int i = 0; i < ks.databases(); i++) {
                s.engine().watches().touchPresent(i, ks.db(i), null);
            }
        }, removed -> {
            s.engine().replicaRole().keysWithExpire().clear(); // as Redis's emptyData
            s.dirty(Math.max(removed, 1)); // the keys removed, as Redis; at least one, so that an empty FLUSHALL is logged
            if (async) {
                s.engine().stats().lazyfreedObjects.add(removed);
            }
        });
        s.engine().hooks().flushedAll(s); // a running BGSAVE stopped, then the empty dataset saved (save points set)
        s.out().ok();
    }

    /**
     * Whether the flush is ASYNC (given, or by lazyfree-lazy-user-flush without a mode). Both modes free memory
     * the same way here (the GC reclaims the dropped tables in the background); ASYNC counts the keys in INFO's
     * lazyfreed_objects, as Redis.
     */
    private static boolean flushAsync(Session s, Args a) {
        if (a.count() > 2 || (a.count() == 2 && !a.is(1, "ASYNC") && !a.is(1, "SYNC"))) {
            throw Errors.SYNTAX;
        }
        return a.count() == 2 ? a.is(1, "ASYNC") : s.engine().config().lazyfreeLazyUserFlush.value();
    }
}
