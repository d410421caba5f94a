package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.KeyPositions;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.clients.Monitors;
import dev.spinel.server.engine.clients.SlowLog;
import dev.spinel.server.engine.ports.KeyObserver;
import dev.spinel.server.engine.tracking.Tracking;
import dev.spinel.server.engine.tracking.TrackingState;
import dev.spinel.server.engine.replica.ReplicaRole;
import dev.spinel.server.stats.LatencyMonitor;
import dev.spinel.server.stats.ServerStats;
import dev.spinel.store.Keyspace;
import dev.spinel.store.StripeLocks;

import java.nio.charset.StandardCharsets;
import java.util.function.IntConsumer;

/**
 * What a command's run signals besides its reply: its first write (WATCHes invalidated and blocked
 * waiters signalled while it still holds its stripes), its writes (client-side caches invalidated, other
 * front ends' observer told), its reads (CLIENT TRACKING), and its completion (slow log, latency monitor,
 * MONITOR; for a served blocked command, its statistics). The engine calls it from its run path; each
 * check costs a field read or a comparison when its feature is unused.
 *
 * <p>Thread-safety: stateless; called on the thread executing the command, and writes only to
 * thread-safe parts of the engine.
 */
final class CommandEffects {
    private final ServerConfig config;
    private final ServerStats stats;
    private final CommandTable commands;
    private final Keyspace keyspace;
    private final Watches watches;
    private final Blocking blocking;
    private final Tracking tracking;
    private final SlowLog slowLog;
    private final LatencyMonitor latency;
    private final Monitors monitors;
    private final EngineHooks hooks;
    private final ReplicaRole replicaRole;

    CommandEffects(Engine engine) {
        this.config = engine.config();
        this.stats = engine.stats();
        this.commands = engine.commands();
        this.keyspace = engine.keyspace();
        this.watches = engine.watches();
        this.blocking = engine.blocking();
        this.tracking = engine.tracking();
        this.slowLog = engine.slowLog();
        this.latency = engine.latency();
        this.monitors = engine.monitors();
        this.hooks = engine.hooks();
        this.replicaRole = engine.replicaRole();
    }

    /** After a command that wrote: client-side caches of its keys are invalidated, other front ends told. */
    void written(Session session, Command cmd, Args args) {
        if (tracking.active() && !session.writes().quietWrite()) {
            invalidateTracking(session, cmd, args);
        }
        if (observing()) {
            notifyObserver(session, cmd, args);
        }
        if (replicaRole.active()) { // one volatile read per write on a master
            rememberReplicaKeysWithExpire(session, cmd, args);
        }
    }

    /**
     * On a writable replica, the keys a client's write left with a time to live are tracked so that the replica
     * expires them itself (Redis's rememberSlaveKeyWithExpire); the master's own keys are not (its DELs come).
     */
    private void rememberReplicaKeysWithExpire(Session session, Command cmd, Args args) {
        Session client = session.scriptCaller() != null ? session.scriptCaller() : session;
        if (client.isReplicationApplier() || config.replicaReadOnly.value()) {
            return;
        }
        ChangedKeys.visit(session, cmd, args, replicaRole.keysWithExpire()::rememberIfVolatile, db -> { });
    }

    /**
     * After any command of a tracking client: the keys it read are remembered for invalidation, and CLIENT
     * CACHING's one-command setting is used up. A read inside a script tracks, for its caller, the keys the script
     * declared (EVAL's own keys, not the read's), at that read, as Redis 7.0's call(): a write of such a key later
     * in the same script then invalidates it, and the caller gets that invalidation after the script's reply.
     */
    void trackReads(Session session, Command cmd, Args args) {
        TrackingState ts = session.tracking();
        if (ts != null) {
            if (cmd.tracksReads) {
                for (int k : keysOf(cmd, args)) {
                    tracking.keyRead(session, args.copy(k));
                }
            }
            // Redis's resetClient keeps the flag after any CLIENT subcommand (CLIENT ID, CLIENT REPLY SKIP...)
            if (!cmd.name().startsWith("client|")) {
                ts.caching(null);
            }
        } else if (cmd.tracksReads && session.declaredKeys() != null) {
            for (byte[] key : session.declaredKeys()) {
                tracking.keyRead(session.scriptCaller(), key);
            }
        }
    }

    /**
     * A blocked command was served with {@code reply}: the slow log gets it now, with its original arguments,
     * as Redis's updateStatsOnUnblock (a command that blocks is not logged when it blocks, nor when it times
     * out); an error reply is counted.
     */
    void unblocked(Session s, Args original, long micros, byte[] reply) {
        countErrorReply(original, reply);
        long slower = config.slowlogLogSlowerThan.value();
        if (original != null && slower >= 0 && micros >= slower) {
            slowLog.add(s, original, micros, config.slowlogMaxLen.value());
        }
    }

    /**
     * An error reply to a blocked command (served with one, or ended by CLIENT UNBLOCK ... ERROR) counts as
     * Redis's addReplyError counts it: errorstats and the command's failed_calls.
     */
    void countErrorReply(Args original, byte[] reply) {
        if (reply.length > 0 && reply[0] == '-' && original != null) {
            int end = 1;
            while (end < reply.length && reply[end] != ' ' && reply[end] != '\r') {
                end++;
            }
            stats.error(new String(reply, 1, end - 1, StandardCharsets.US_ASCII));
            failedCall(original);
        }
    }

    /**
     * A blocked command CLIENT UNBLOCK ended: its error reply counted as {@link #countErrorReply}, and, as
     * redis-server 7.0.15 counts it, a failed call even when it ends as if timed out (a timeout of its own
     * is not one).
     */
    void unblockedByClient(Args original, byte[] reply) {
        if (reply.length > 0 && reply[0] == '-') {
            countErrorReply(original, reply);
        } else if (original != null) {
            failedCall(original);
        }
    }

    private void failedCall(Args original) {
        Command cmd = commands.lookup(original);
        if (cmd != null) {
            cmd.failedCalls.increment();
        }
    }

    /** Slow log, latency monitor and MONITOR feeds: each costs one comparison when unused. */
    void afterCommand(Session s, Command cmd, Args args, long micros) {
        long slower = config.slowlogLogSlowerThan.value();
        if (slower >= 0 && micros >= slower && !cmd.has(CommandFlag.SKIP_SLOWLOG) && !s.writes().blockedInCommand()) {
            slowLog.add(s, args, micros, config.slowlogMaxLen.value());
        }
        long threshold = config.latencyMonitorThreshold.value();
        if (threshold > 0 && micros / 1000 >= threshold) {
            latency.record(cmd.has(CommandFlag.FAST) ? "fast-command" : "command", micros / 1000);
        }
        if (!monitors.isEmpty() && !cmd.has(CommandFlag.SKIP_MONITOR) && !cmd.has(CommandFlag.ADMIN)) {
            monitors.feed(s, args);
        }
    }

    /**
     * Called by {@link Session#dirty} the first time a command changes data, while the command still
     * holds the stripe locks of what it changed: the watches on its keys are invalidated before any
     * EXEC (which takes every stripe) can check them, so an EXEC never misses a concurrent write.
     */
    void firstWrite(Session s, Command cmd, Args args) {
        if (cmd == null) {
            return;
        }
        if (!watches.isEmpty()) {
            // FLUSHDB, FLUSHALL and SWAPDB touch only the watched keys that exist, themselves (Watches.touchPresent)
            ChangedKeys.visit(s, cmd, args, watches::touch, db -> { });
        }
        if (blocking.blockedClients() > 0) {
            // A written key may have been deleted or overwritten: a client blocked in XREADGROUP on it is then
            // answered an error (Redis signals a stream key as ready when it is unlinked or replaced). The
            // waiters are served after the command, when the change is complete; others find nothing new.
            ChangedKeys.visit(s, cmd, args, (db, key) -> blocking.signal(keyspace.db(db), key, 0, key.length),
                    db -> {
                        for (int i = 0; i < keyspace.databases(); i++) {
                            if (db < 0 || db == i) {
                                blocking.signalDatabase(i);
                            }
                        }
                    });
        }
    }

    /** After a write command: client-side caches of its keys are invalidated (after its reply, as Redis). */
    private void invalidateTracking(Session s, Command cmd, Args args) {
        switch (cmd.name()) {
            case "flushall", "flushdb", "swapdb" -> tracking.flushed(s);
            default -> ChangedKeys.visit(s, cmd, args, (db, key) -> tracking.keyChanged(s, key), db -> tracking.flushed(s));
        }
    }

    /** Tells the other front ends' observer (gRPC versions, Watch streams) which keys a command changed. */
    private void notifyObserver(Session s, Command cmd, Args args) {
        KeyObserver o = hooks.keyObserver();
        ChangedKeys.visit(s, cmd, args, o::keyChanged, o::databaseChanged);
    }

    private boolean observing() {
        KeyObserver o = hooks.keyObserver();
        return o != null && o.active();
    }

    /**
     * Adds the stripes of the request's keys to {@code locks}; false (nothing added) when it names none. A write
     * with one key at a fixed position (SET, INCR, HSET...) finds it without an array: this runs per logged write.
     */
    static boolean addKeyStripes(Session s, Command cmd, Args args, StripeLocks locks) {
        int single = KeyPositions.singleKey(cmd.spec(), args);
        if (single > 0) {
            locks.add(s.db(), args.buffer(), args.offset(single), args.length(single));
            return true;
        }
        int[] keys = keysOf(cmd, args);
        for (int k : keys) {
            locks.add(s.db(), args.buffer(), args.offset(k), args.length(k));
        }
        return keys.length > 0;
    }

    static int[] keysOf(Command cmd, Args args) {
        try {
            return KeyPositions.of(cmd.spec(), args);
        } catch (IllegalArgumentException e) {
            return new int[0];
        }
    }

    /**
     * The keys a write command changed, as Redis signals them (signalModifiedKey): for WATCH, client-side
     * caching and the other front ends' observer. Stateless and thread-safe.
     */
    static final class ChangedKeys {
        private ChangedKeys() {
        }

        /** Receives one changed key of one database. */
        @FunctionalInterface
        interface Visitor {
            void changed(int db, byte[] key);
        }

        /**
         * The keys a write command changes, found from Redis's key specs (read-only ones left out), plus the
         * targets of MOVE/COPY ... DB;
         * flushes and swaps change whole databases ({@code -1}: all of them).
         */
        static void visit(Session s, Command cmd, Args args, Visitor key, IntConsumer wholeDb) {
            switch (cmd.name()) {
                case "flushall" -> wholeDb.accept(-1);
                case "flushdb" -> wholeDb.accept(s.dbIndex());
                case "swapdb" -> {
                    wholeDb.accept((int) args.parseLong(1));
                    wholeDb.accept((int) args.parseLong(2));
                }
                default -> {
                    for (int k : writtenKeysOf(cmd, args)) {
                        if (!s.writes().isKeyUnchanged(k)) {
                            key.changed(s.dbIndex(), args.copy(k));
                        }
                    }
                    if (cmd.name().equals("move")) {
                        key.changed((int) args.parseLong(2), args.copy(1));
                    } else if (cmd.name().equals("copy")) {
                        for (int i = 3; i + 1 < args.count(); i++) {
                            if (args.is(i, "DB")) {
                                key.changed((int) args.parseLong(i + 1), args.copy(2));
                            }
                        }
                    }
                }
            }
        }

        /** The keys of a write command that it may change (sources read by SINTERSTORE, BITOP... excluded). */
        private static int[] writtenKeysOf(Command cmd, Args args) {
            try {
                return KeyPositions.written(cmd.spec(), args);
            } catch (IllegalArgumentException e) {
                return new int[0];
            }
        }
    }
}
