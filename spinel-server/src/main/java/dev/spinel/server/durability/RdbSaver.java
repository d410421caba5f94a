package dev.spinel.server.durability;

import dev.spinel.persistence.KeyspaceLoader;
import dev.spinel.persistence.RdbFiles;
import dev.spinel.persistence.RdbWriter;
import dev.spinel.persistence.ValueCodecs;
import dev.spinel.protocol.Version;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.durability.Persistence.BgsaveStart;
import dev.spinel.server.log.Log;
import dev.spinel.server.scripting.FunctionLibraries;
import dev.spinel.server.stats.ServerStats;
import dev.spinel.store.Keyspace;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

/**
 * The RDB snapshots of one server, for {@link Persistence}: SAVE (on the caller's thread), BGSAVE (on a
 * background thread while the event loops keep serving), the {@code save} points checked by the cron, the final
 * save at shutdown, and their INFO fields.
 *
 * <p>Consistency of a snapshot: point in time, as Redis's fork gives: armed under every stripe, then
 * copied by copy-on-write per chunk of ~64 keys while writes go on (see {@link RdbWriter.Snapshot}).
 *
 * <p>Thread-safety: at most one save runs at a time ({@link #saving}); the counters read by INFO are
 * volatile. Every method may be called from any thread; {@link #save} blocks its caller.
 */
final class RdbSaver {
    /** Redis's CONFIG_BGSAVE_RETRY_DELAY: after a failed BGSAVE, the schedule waits this long. */
    private static final long RETRY_DELAY_SECONDS = 5;

    private final ServerConfig config;
    private final Keyspace keyspace;
    private final ServerStats stats;
    private final FunctionLibraries functions;
    private final AtomicBoolean saving = new AtomicBoolean();
    private final AtomicBoolean shutdownHandled = new AtomicBoolean();

    private volatile boolean bgsaveInProgress;
    /** The running BGSAVE's snapshot once armed (null otherwise), for {@link #abortBackground}. */
    private volatile RdbWriter.Snapshot backgroundSnapshot;
    /** Set by {@link #abortBackground} for the BGSAVE it stopped. */
    private volatile boolean backgroundAborted;
    /** The signal that killed the running BGSAVE's {@link BackgroundChild}, or 0. */
    private volatile int killedBy;
    private volatile boolean bgsaveScheduled;
    private volatile long lastSaveSeconds = System.currentTimeMillis() / 1000;
    private volatile long lastBgsaveTrySeconds;
    private volatile boolean lastBgsaveOk = true;
    private volatile long lastBgsaveDurationSeconds = -1;
    private volatile long bgsaveStartMillis = -1;
    private volatile long dirtyAtLastSave;
    private volatile long saves;
    private volatile long lastLoadKeysLoaded;
    private volatile long lastLoadKeysExpired;
    private volatile long currentSaveKeysTotal;
    /** RDBs being made for replicas' full resyncs (Redis's RDB child for replication): a BGSAVE in progress to INFO, BGSAVE, SAVE. */
    private final AtomicInteger replicaSaves = new AtomicInteger();
    private volatile long replicaSaveStartMillis = -1;

    /** Replication's AUX fields for a save, read under every stripe (null: none); see {@link #replication}. */
    private volatile Supplier<Map<String, Object>> replicationInfo;
    /** Taken before the stripes for a save (a replica's lock around each applied command), or null. */
    private volatile Supplier<Lock> replicationLock;

    RdbSaver(ServerConfig config, Keyspace keyspace, ServerStats stats, FunctionLibraries functions) {
        this.config = config;
        this.keyspace = keyspace;
        this.stats = stats;
        this.functions = functions;
    }

    /** {@code dir/dbfilename}. */
    Path rdbPath() {
        return Path.of(config.dir.value()).resolve(config.dbfilename.value());
    }

    private RdbWriter.Options options() {
        return options(functions.codes());
    }

    /**
     * Saves carry replication's AUX fields (repl-id, repl-offset, repl-stream-db, as Redis's rdbPopulateSaveInfo),
     * so a restarted server continues its history with a partial resync: {@code info} is read under every
     * stripe, after {@code lock} (when it gives one) was taken.
     */
    void replication(Supplier<Map<String, Object>> info, Supplier<Lock> lock) {
        this.replicationInfo = info;
        this.replicationLock = lock;
    }

    private RdbWriter.Options options(List<byte[]> functionCodes) {
        return options(functionCodes, null);
    }

    /** {@code functionCodes}: the function libraries, taken with the keys' snapshot; {@code repl}: replication's AUX fields. */
    private RdbWriter.Options options(List<byte[]> functionCodes, Map<String, Object> repl) {
        String policy = config.maxmemoryPolicy.value();
        RdbWriter.Access access = policy.endsWith("-lfu") ? RdbWriter.Access.LFU_FREQ
                : policy.endsWith("-lru") ? RdbWriter.Access.LRU_IDLE : RdbWriter.Access.NONE;
        long used = 0;
        for (int i = 0; i < keyspace.databases(); i++) {
            used += keyspace.db(i).memory();
        }
        Map<String, Object> aux = RdbWriter.Options.redisAux(Version.REDIS, used, false);
        if (repl != null) {
            aux = new LinkedHashMap<>(aux);
            aux.putAll(repl);
        }
        return new RdbWriter.Options(config.rdbcompression.value(), config.rdbchecksum.value(), access,
                aux, functionCodes)
                .withKeySaveDelay((int) config.rdbKeySaveDelay.value());
    }

    /** Changes since the last successful save (Redis's {@code server.dirty}). */
    long changesSinceLastSave() {
        return stats.dirty.sum() - dirtyAtLastSave;
    }

    /** The dataset now in memory counts as saved (loaded at start-up, replaced by a DEBUG reload). */
    void markSaved() {
        dirtyAtLastSave = stats.dirty.sum();
    }

    /** An RDB was loaded at start-up: its counts for INFO. */
    void loaded(KeyspaceLoader loaded) {
        lastLoadKeysLoaded = loaded.loaded();
        lastLoadKeysExpired = loaded.expiredSkipped();
    }

    /** Whether the last BGSAVE failed (writes are then refused, with stop-writes-on-bgsave-error). */
    boolean lastBgsaveFailed() {
        return !lastBgsaveOk;
    }

    /** True while a BGSAVE runs, or an RDB for replicas is made (Redis's child of either kind). */
    boolean bgsaveInProgress() {
        return bgsaveInProgress || replicaSaves.get() > 0;
    }

    /** A full resync's RDB for replicas starts: until {@link #replicaSaveEnded}, BGSAVE and SAVE are refused, as in Redis. */
    void replicaSaveStarted() {
        if (replicaSaves.getAndIncrement() == 0) {
            replicaSaveStartMillis = System.currentTimeMillis();
        }
        lastBgsaveTrySeconds = System.currentTimeMillis() / 1000;
    }

    /**
     * A full resync's RDB ended. One written to {@code dbfilename} (disk-style replication, as Redis's BGSAVE for
     * replicas) counts as a save: {@code ok} sets the last BGSAVE status and, when true, the last save time and the
     * changes since it ({@code dirtyBefore}: the change counter when the snapshot was armed). Stopped ones
     * ({@code aborted}: no replica wanted them any more) leave the status alone, as a killed child does.
     */
    void replicaSaveEnded(boolean toDisk, boolean ok, boolean aborted, long dirtyBefore) {
        if (toDisk && !aborted) {
            lastBgsaveOk = ok;
            if (ok) {
                dirtyAtLastSave = dirtyBefore;
                lastSaveSeconds = System.currentTimeMillis() / 1000;
            }
        }
        long start = replicaSaveStartMillis;
        if (replicaSaves.decrementAndGet() == 0) {
            replicaSaveStartMillis = -1;
            lastBgsaveDurationSeconds = (System.currentTimeMillis() - start) / 1000;
        }
    }

    /**
     * SAVE: writes the snapshot on the calling thread. Returns false when it failed (logged); throws
     * {@link IllegalStateException} when a background save is in progress.
     */
    boolean save() {
        return save(0);
    }

    /**
     * How long a save at shutdown waits for the stripes (and for a running BGSAVE): a command or script that
     * does not end must not keep the server from exiting; the save fails then.
     */
    static final long SHUTDOWN_WAIT_NANOS = 5_000_000_000L;

    /** SHUTDOWN's save: {@link #save()}, but it fails when the keyspace stays locked longer than {@link #SHUTDOWN_WAIT_NANOS}. */
    boolean saveForShutdown() {
        return save(SHUTDOWN_WAIT_NANOS);
    }

    private boolean save(long lockWaitNanos) {
        if (replicaSaves.get() > 0 || !saving.compareAndSet(false, true)) {
            throw new IllegalStateException("Background save already in progress");
        }
        try {
            return doSave(false, lockWaitNanos);
        } finally {
            saving.set(false);
        }
    }

    /**
     * BGSAVE [SCHEDULE]. Inside MULTI/EXEC the save is only scheduled (the cron starts it), as Redis
     * does; SCHEDULE matters in Redis only while another child (an AOF rewrite) runs, which Spinel has
     * not, so it starts at once like a plain BGSAVE.
     */
    BgsaveStart bgsave(boolean inTransaction) {
        if (saving.get() || replicaSaves.get() > 0) {
            return BgsaveStart.ALREADY_IN_PROGRESS;
        }
        if (inTransaction) {
            bgsaveScheduled = true;
            return BgsaveStart.SCHEDULED;
        }
        if (!saving.compareAndSet(false, true)) {
            return BgsaveStart.ALREADY_IN_PROGRESS;
        }
        startBackground();
        return BgsaveStart.STARTED;
    }

    /** Starts the background thread; the caller holds {@link #saving}. */
    private void startBackground() {
        bgsaveInProgress = true;
        bgsaveScheduled = false;
        bgsaveStartMillis = System.currentTimeMillis();
        lastBgsaveTrySeconds = bgsaveStartMillis / 1000;
        Log.notice("Background saving started");
        backgroundAborted = false;
        // Armed here, before BGSAVE answers, as Redis forks before it answers: a write that follows the reply is
        // never in the image (armed on the save's thread, the first writes after the reply could be).
        saves++;
        Armed armed = arm(true, 0);
        stats.totalForks.increment();
        killedBy = 0;
        // killing the stand-in of Redis's child stops the save and fails it (a kill by FLUSHALL's abort is no failure)
        BackgroundChild child = BackgroundChild.start(signal -> {
            killedBy = signal;
            RdbWriter.Snapshot snap = backgroundSnapshot;
            if (snap != null) {
                snap.abort("the background save's child was killed");
            }
        });
        Thread t = new Thread(() -> {
            try {
                boolean ok = armed != null && write(armed, true);
                if (child != null) {
                    child.end();
                }
                if (!ok && killedBy != 0) {
                    lastBgsaveOk = false;
                    Log.warning("Background saving terminated by signal " + killedBy);
                } else if (!ok && backgroundAborted) {
                    // as Redis's child killed with SIGUSR1 by killRDBChild: not an error (no MISCONF)
                    Log.warning("Background saving terminated: stopped by FLUSHALL");
                } else {
                    lastBgsaveOk = ok;
                    Log.notice(ok ? "Background saving terminated with success" : "Background saving error");
                }
            } finally {
                backgroundSnapshot = null;
                lastBgsaveDurationSeconds = (System.currentTimeMillis() - bgsaveStartMillis) / 1000;
                bgsaveStartMillis = -1;
                bgsaveInProgress = false;
                saving.set(false);
            }
        }, "spinel-bgsave");
        t.setDaemon(true);
        t.start();
    }

    /** A save; {@code lockWaitNanos} > 0 bounds the wait for the stripes (the save fails past it). */
    private boolean doSave(boolean background, long lockWaitNanos) {
        saves++;
        Armed armed = arm(background, lockWaitNanos);
        return armed != null && write(armed, background);
    }

    /** An armed image and what goes with it: the change counter, the functions and replication's AUX fields. */
    private record Armed(RdbWriter.Snapshot snap, long dirtyBefore, List<byte[]> functionCodes, Map<String, Object> repl) {
    }

    /** Arms the point-in-time image (null when it could not be: logged). */
    private Armed arm(boolean background, long lockWaitNanos) {
        long dirtyBefore;
        RdbWriter.Snapshot snap;
        List<byte[]> functionCodes;
        Map<String, Object> repl = null;
        Supplier<Lock> lockHook = replicationLock;
        Lock replLock = lockHook != null ? lockHook.get() : null;
        try {
            // Point in time, as a fork gives Redis: armed under every stripe (a flag per segment), then
            // copied segment by segment as writers or the save reach them (RdbWriter.Snapshot).
            long t0 = System.nanoTime();
            if (replLock != null && !replLock.tryLock(lockWaitNanos == 0 ? Long.MAX_VALUE : lockWaitNanos, TimeUnit.NANOSECONDS)) {
                replLock = null;
                Log.warning("Failed capturing the dataset for the RDB: the replication link still applies a command");
                return null;
            }
            if (lockWaitNanos == 0) {
                keyspace.lockAll();
            } else if (!keyspace.tryLockAllUntil(t0 + lockWaitNanos)) {
                Log.warning(String.format("Failed capturing the dataset for the RDB: a command or script still holds part"
                        + " of the keyspace after %.0f seconds", lockWaitNanos / 1e9));
                return null;
            }
            try {
                dirtyBefore = stats.dirty.sum(); // writers count dirty under their stripes: exact here
                functionCodes = functions.codes(); // changed under every stripe too
                snap = new RdbWriter(ValueCodecs.standard()).arm(keyspace, options().access());
                Supplier<Map<String, Object>> info = replicationInfo;
                repl = info != null ? info.get() : null; // the offset that matches the snapshot
            } finally {
                keyspace.unlockAll();
            }
            if (background) {
                backgroundSnapshot = snap;
                if (backgroundAborted) { // stopped between its start and here
                    snap.abort("the background save was stopped");
                }
            }
            currentSaveKeysTotal = snap.keys(); // counted under every stripe by arm()
            Log.verbose(String.format("Snapshot armed (%d keys, writers paused %.3f ms)", currentSaveKeysTotal, (System.nanoTime() - t0) / 1e6));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (RuntimeException e) {
            currentSaveKeysTotal = 0;
            Log.warning("Failed capturing the dataset for the RDB: " + e);
            return null;
        } finally {
            if (replLock != null) {
                replLock.unlock();
            }
        }
        return new Armed(snap, dirtyBefore, functionCodes, repl);
    }

    /** Writes an armed image to the RDB file. */
    private boolean write(Armed armed, boolean background) {
        RdbWriter.Snapshot snap = armed.snap();
        long dirtyBefore = armed.dirtyBefore();
        try {
            RdbFiles.save(snap, rdbPath(), options(armed.functionCodes(), armed.repl()));
            dirtyAtLastSave = dirtyBefore;
            lastSaveSeconds = System.currentTimeMillis() / 1000;
            lastBgsaveOk = true; // as Redis's rdbSave: any successful save clears the error
            if (!background) {
                Log.notice("DB saved on disk");
            }
            return true;
        } catch (IOException | RuntimeException e) {
            snap.cancel();
            if (background && (backgroundAborted || killedBy != 0)) {
                return false;
            }
            Log.warning("Failed opening the temp RDB file or writing it (in server root dir " + config.dir.value() + "): " + e);
            return false;
        } finally {
            currentSaveKeysTotal = 0;
        }
    }

    /**
     * FLUSHALL (Redis's killRDBChild): stops a running BGSAVE, whose file would bring the flushed keys back;
     * it leaves the previous file in place, the change counter unchanged and the last save status as it was.
     */
    void abortBackground() {
        if (!bgsaveInProgress) {
            return;
        }
        backgroundAborted = true;
        RdbWriter.Snapshot snap = backgroundSnapshot;
        if (snap != null) {
            snap.abort("the background save was stopped");
        }
    }

    /** LASTSAVE: Unix seconds of the last successful save (start-up time before any). */
    long lastSave() {
        return lastSaveSeconds;
    }

    /** Called by the server cron: starts a scheduled BGSAVE or one due by the {@code save} points. */
    void cron() {
        if (saving.get() || replicaSaves.get() > 0) { // as Redis, no save starts while a child runs
            return;
        }
        long now = System.currentTimeMillis() / 1000;
        if (bgsaveScheduled) {
            bgsave(false);
            return;
        }
        SavePoints points = SavePoints.parseOrNone(config.save.get());
        if (points.isEmpty()) {
            return;
        }
        long[] due = points.due(changesSinceLastSave(), now - lastSaveSeconds);
        if (due != null && (lastBgsaveOk || now - lastBgsaveTrySeconds > RETRY_DELAY_SECONDS)) {
            Log.notice(due[1] + " changes in " + due[0] + " seconds. Saving...");
            bgsave(false);
        }
    }

    /** Marks the shutdown as handled without saving (SHUTDOWN NOSAVE). */
    void skipShutdownSave() {
        shutdownHandled.set(true);
    }

    /**
     * The final save at shutdown (SHUTDOWN, SIGTERM): when save points are configured, waits for a
     * running BGSAVE and saves synchronously. Runs at most once per server; returns false only when
     * a save was needed and failed.
     */
    boolean saveOnShutdown() {
        if (!shutdownHandled.compareAndSet(false, true)) {
            return true;
        }
        if (SavePoints.parseOrNone(config.save.get()).isEmpty()) {
            return true;
        }
        Log.notice("Saving the final RDB snapshot before exiting.");
        long giveUp = System.nanoTime() + 6 * SHUTDOWN_WAIT_NANOS;
        while (!saving.compareAndSet(false, true)) {
            if (System.nanoTime() - giveUp > 0) {
                Log.warning("Error trying to save the DB: a background save is still running after 30 seconds.");
                return false;
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        try {
            boolean ok = doSave(false, SHUTDOWN_WAIT_NANOS);
            if (!ok) {
                Log.warning("Error trying to save the DB, can't exit.");
            }
            return ok;
        } finally {
            saving.set(false);
        }
    }

    /** The snapshot's lines of the INFO {@code persistence} section, up to the AOF's. */
    void appendInfo(StringBuilder sb) {
        long start = bgsaveStartMillis >= 0 ? bgsaveStartMillis : replicaSaveStartMillis;
        line(sb, "current_cow_peak", 0);
        line(sb, "current_cow_size", 0);
        line(sb, "current_cow_size_age", 0);
        sb.append("current_fork_perc:0.00\r\n");
        line(sb, "current_save_keys_processed", 0);
        line(sb, "current_save_keys_total", currentSaveKeysTotal);
        line(sb, "rdb_changes_since_last_save", changesSinceLastSave());
        line(sb, "rdb_bgsave_in_progress", bgsaveInProgress() ? 1 : 0);
        line(sb, "rdb_last_save_time", lastSaveSeconds);
        sb.append("rdb_last_bgsave_status:").append(lastBgsaveOk ? "ok" : "err").append("\r\n");
        line(sb, "rdb_last_bgsave_time_sec", lastBgsaveDurationSeconds);
        line(sb, "rdb_current_bgsave_time_sec", start < 0 ? -1 : (System.currentTimeMillis() - start) / 1000);
        line(sb, "rdb_saves", saves);
        line(sb, "rdb_last_cow_size", 0);
        line(sb, "rdb_last_load_keys_expired", lastLoadKeysExpired);
        line(sb, "rdb_last_load_keys_loaded", lastLoadKeysLoaded);
    }

    static void line(StringBuilder sb, String name, long v) {
        sb.append(name).append(':').append(v).append("\r\n");
    }
}
