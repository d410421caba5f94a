package dev.spinel.server.durability;

import dev.spinel.persistence.CollectionCodecs;
import dev.spinel.persistence.KeyspaceLoader;
import dev.spinel.persistence.RdbException;
import dev.spinel.persistence.RdbWriter;
import dev.spinel.persistence.ValueCodecs;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.server.log.Log;
import dev.spinel.server.scripting.FunctionError;
import dev.spinel.server.scripting.FunctionLibraries;
import dev.spinel.server.stats.ServerStats;
import dev.spinel.store.Keyspace;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static dev.spinel.server.durability.RdbSaver.line;

/**
 * The durability of one server: loading {@code dir/dbfilename} or the append-only file at start-up, the log
 * turned on and off (CONFIG SET appendonly) and rewritten (BGREWRITEAOF), the refusal of writes after a failed
 * save or log write (MISCONF), the cron, and the INFO {@code persistence} section. Snapshots (SAVE, BGSAVE,
 * the {@code save} points, the final save at shutdown) are {@link RdbSaver}'s; reloads are {@link DatasetLoads}'.
 *
 * <p>Thread-safety: every method may be called from any thread; the log's state is volatile, and turning it on
 * or off is synchronized; {@link #save} blocks its caller.
 */
public final class Persistence {
    private final ServerConfig config;
    private final FunctionLibraries functions;
    private final ServerStats stats;
    private final RdbSaver saver;
    /** Loading a dataset from the files: at start-up, DEBUG RELOAD, DEBUG LOADAOF. */
    private final DatasetLoads loads;
    /** The AUX fields of the RDB loaded at start-up (empty when none was). */
    private volatile Map<String, String> loadedAux = Map.of();
    /** The outcome of every log rewrite of this server (status, count, consecutive failures and their limit). */
    private final AofRewrites rewrites = new AofRewrites();

    public Persistence(ServerConfig config, Keyspace keyspace, ServerStats stats, FunctionLibraries functions) {
        this.config = config;
        this.functions = functions;
        this.stats = stats;
        this.saver = new RdbSaver(config, keyspace, stats, functions);
        this.loads = new DatasetLoads(this, config, keyspace, functions);
        CollectionCodecs.register(ValueCodecs.standard(),
                config.collectionSettings, config.setLimits);
    }

    /** {@code dir/dbfilename}. */
    public Path rdbPath() {
        return saver.rdbPath();
    }

    /**
     * Saves carry replication's AUX fields (repl-id, repl-offset, repl-stream-db, as Redis's rdbPopulateSaveInfo),
     * so a restarted server continues its history with a partial resync: {@code info} is read under every
     * stripe, after {@code lock} (when it gives one) was taken.
     */
    public void replication(Supplier<Map<String, Object>> info, Supplier<Lock> lock) {
        saver.replication(info, lock);
    }

    /** The AUX fields of the RDB loaded at start-up (redis-ver, repl-id, repl-offset, ...); empty when none. */
    public Map<String, String> loadedAux() {
        return loadedAux;
    }

    /**
     * Loads each library of a file (Redis's {@code rdbFunctionLoad}): one that cannot be created stops the
     * load, as in Redis.
     */
    static Consumer<byte[]> functionLoader(FunctionLibraries functions) {
        return code -> {
            try {
                functions.load(code, false);
            } catch (FunctionError e) {
                throw new RdbException("Failed loading library, " + e.getMessage());
            }
        };
    }

    /** Changes since the last successful save (Redis's {@code server.dirty}). */
    public long changesSinceLastSave() {
        return saver.changesSinceLastSave();
    }

    // ---------------------------------------------------------------- start-up

    private volatile Aof aof;
    /** Does BGREWRITEAOF while the log is off. */
    private volatile Aof offlineRewriter;

    /** BGREWRITEAOF: false when a rewrite is already running. Throws with the reason when it cannot start. */
    public boolean rewriteAof() throws IOException {
        Aof a = aof;
        if (a != null) {
            return a.rewrite();
        }
        return offlineRewriter.rewriteWithoutLog();
    }

    /** A BGREWRITEAOF that came during a BGSAVE, started by the cron once the save ends (Redis's aof_rewrite_scheduled). */
    private volatile boolean rewriteScheduled;

    /** Whether a log rewrite is running. */
    public boolean rewriteInProgress() {
        Aof rw = rewriter();
        return rw != null && rw.rewriting();
    }

    /** BGREWRITEAOF during a BGSAVE: schedules the rewrite for when the save ends and returns true; else false. */
    public boolean scheduleRewriteIfSaving() {
        if (!bgsaveInProgress()) {
            return false;
        }
        rewriteScheduled = true;
        return true;
    }

    private Aof rewriter() {
        Aof a = aof;
        return a != null ? a : offlineRewriter;
    }

    /**
     * Loads the dataset at start-up and opens the append-only log when {@code appendonly yes}: the AOF
     * when it exists and is enabled, otherwise {@code dir/dbfilename} ({@code expired} gets the keys it skips as
     * already expired). A cluster {@code replica} (by its nodes.conf) loads as Redis's loadDataFromDisk on a node that
     * is not iAmMaster(): with the engine's replica role taken first, the load keeps the keys its file has already
     * expired and neither active nor lazy expiry deletes them (its primary's DELs do; cluster mode drops the role if
     * the topology makes the node a primary). Throws {@link RdbException} (the message says which file, what and where) when a file
     * exists but cannot be loaded.
     */
    public void loadAtStartup(Engine engine, KeyspaceLoader.ExpiredKeys expired, boolean replica) {
        loads.loading(engine.replicaRole().loading());
        loads.keepExpired(replica);
        if (replica) {
            engine.replicaRole().active(true);
            engine.keyspace().lazyExpiry(false);
        }
        this.engine = engine;
        this.offlineRewriter = new Aof(config, engine, functions, rewrites);
        config.appendonly.listen(on -> appendonlyChanged(engine, on));
        config.aofDisableAutoGc.listen(keep -> {
            Aof rw = rewriter();
            if (!keep && rw != null) {
                rw.deleteHistory();
            }
        });
        engine.hooks().diskError(this::writeRefusal);
        engine.hooks().flushAllListener(this::flushedAll);
        if (config.appendonly.value()) {
            Aof a = new Aof(config, engine, functions, rewrites);
            try {
                a.upgradeIfNeeded();
                if (a.exists()) {
                    a.load();
                    saver.markSaved();
                } else {
                    loadRdb(expired);
                }
                a.open();
            } catch (IOException e) {
                throw new RdbException(e.getMessage(), e);
            }
            aof = a;
            return;
        }
        loadRdb(expired);
    }

    private static final String MISCONF_RDB = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. "
            + "Commands that may modify the data set are disabled, because this instance is configured to report errors during writes "
            + "if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error.";

    /** Why writes are refused now (Redis's MISCONF), or null. Cheap: read on every write command. */
    String writeRefusal() {
        if (saver.lastBgsaveFailed() && config.stopWritesOnBgsaveError.value() && !SavePoints.parseOrNone(config.save.get()).isEmpty()) {
            return MISCONF_RDB;
        }
        Aof a = aof;
        if (a != null && !a.lastWriteOk()) {
            return "MISCONF Errors writing to the AOF file: " + a.lastWriteError();
        }
        return null;
    }

    /**
     * CONFIG SET appendonly: starts the log from memory, or stops it. During a BGSAVE the start waits for the save
     * to end (Redis's startAppendOnly schedules its rewrite while another child runs); writes meanwhile reach no log,
     * the base made at the start captures them.
     */
    private synchronized void appendonlyChanged(Engine engine, boolean on) {
        Aof a = aof;
        if (on && a == null && !enablePending) {
            if (bgsaveInProgress()) {
                enablePending = true;
                Log.warning("AOF was enabled but there is already another background operation. An AOF background was "
                        + "scheduled to start when possible.");
                return;
            }
            if (inTransactionHere(engine)) { // the rewrite's snapshot would split the transaction: the cron starts it
                enablePending = true;
                Log.warning("AOF was enabled during a transaction. An AOF background was scheduled to start when possible.");
                return;
            }
            startLog();
        } else if (!on) {
            enablePending = false;
            if (a != null) {
                aof = null;
                a.stop();
            }
        }
    }

    /** Whether the calling thread runs a client's EXEC (or script): CONFIG SET inside it (Redis's server.in_exec). */
    private static boolean inTransactionHere(Engine engine) {
        Thread me = Thread.currentThread();
        for (var c : engine.clients().all()) {
            if (c.executingOn() == me && c.executingTransaction()) {
                return true;
            }
        }
        return false;
    }

    private volatile Engine engine;
    /** CONFIG SET appendonly yes came during a BGSAVE, or in a transaction, or the rewrite that started the log failed: the cron retries. */
    private volatile boolean enablePending;
    /** The log whose first rewrite runs (Redis's AOF_WAIT_REWRITE), or null. */
    private volatile Aof starting;

    /** Starts the log and its first rewrite; the caller holds this object's monitor. */
    private void startLog() {
        Aof offline = offlineRewriter;
        if (offline.rewriting()) { // a BGREWRITEAOF made while the log was off: its base would miss the log's writes
            offline.stop();
        }
        Aof started = new Aof(config, engine, functions, rewrites);
        starting = started;
        try {
            started.startFromMemory(ok -> initialRewriteEnded(started, ok));
        } catch (IOException e) {
            starting = null;
            Log.warning("Redis needs to enable the AOF but can't trigger a background AOF rewrite operation: " + e.getMessage());
            return;
        }
        aof = started;
        Log.notice("Background append only file rewriting started");
    }

    /**
     * The first rewrite of a log switched on at run time ended (on its thread; not under this object's monitor, which
     * CONFIG SET appendonly no holds while it waits for that thread): on failure the log is given up and the cron
     * starts it again, as Redis reschedules its rewrite in AOF_WAIT_REWRITE.
     */
    private void initialRewriteEnded(Aof started, boolean ok) {
        if (starting == started) {
            starting = null;
        }
        if (!ok && aof == started) {
            aof = null;
            started.abandonStart();
            enablePending = config.appendonly.value();
        }
    }

    /**
     * Whether the log switched on at run time still writes its first base (Redis's AOF_WAIT_REWRITE): until it
     * ends, the dataset is in no file, so a shutdown without FORCE is refused.
     */
    public boolean writingInitialAof() {
        Aof a = aof;
        return enablePending || (a != null && a == starting);
    }

    /** Stops the append-only log (pending writes written and fsynced) and lets a rewrite in progress finish. */
    public void close() {
        Aof a = aof;
        if (a != null) {
            a.close();
        }
        Aof offline = offlineRewriter;
        if (offline != null && offline != a) {
            offline.close(); // a BGREWRITEAOF made while the log was off
        }
    }

    /** Loads {@code dir/dbfilename} if it exists. Throws {@link RdbException} when it exists but is bad. */
    private void loadRdb(KeyspaceLoader.ExpiredKeys expired) {
        KeyspaceLoader loaded = loads.loadRdb(expired);
        if (loaded != null) {
            loadedAux = Map.copyOf(loaded.aux());
            saver.loaded(loaded);
        }
        saver.markSaved();
    }

    /**
     * DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE] (see {@link DatasetLoads#debugReload}): null on success, else
     * Redis's error text.
     */
    public String debugReload(boolean save, boolean flush, boolean merge) {
        return loads.debugReload(save, flush, merge);
    }

    /** DEBUG LOADAOF (see {@link DatasetLoads#debugLoadAof}): null on success, else the error text. */
    public String debugLoadAof() {
        return loads.debugLoadAof();
    }

    /** The dataset was replaced by a DEBUG reload: what it holds counts as saved. */
    void reloaded() {
        saver.markSaved();
    }

    /** The append-only log, or null while it is off. */
    Aof aof() {
        return aof;
    }

    /** The log used for BGREWRITEAOF and DEBUG LOADAOF while the log is off. */
    Aof offlineRewriter() {
        return offlineRewriter;
    }

    // ---------------------------------------------------------------- SAVE / BGSAVE

    /** True while a BGSAVE runs. */
    public boolean bgsaveInProgress() {
        return saver.bgsaveInProgress();
    }

    /**
     * A full resync's RDB for replicas starts (Redis forks a BGSAVE child for it): INFO shows a BGSAVE in
     * progress, and BGSAVE, SAVE and the save points wait, until {@link #replicaSaveEnded}.
     */
    public void replicaSaveStarted() {
        saver.replicaSaveStarted();
    }

    /**
     * The RDB of {@link #replicaSaveStarted} ended; {@code toDisk}: it was written to {@link #rdbPath} (disk-style
     * replication, as Redis), so {@code ok} counts as a BGSAVE's outcome unless {@code aborted}; {@code dirtyBefore}:
     * {@link #changeCounter} when its snapshot was armed.
     */
    public void replicaSaveEnded(boolean toDisk, boolean ok, boolean aborted, long dirtyBefore) {
        saver.replicaSaveEnded(toDisk, ok, aborted, dirtyBefore);
    }

    /** Redis's {@code server.dirty}: read under every stripe, it is exact for a snapshot armed there. */
    public long changeCounter() {
        return stats.dirty.sum();
    }

    /**
     * FLUSHALL (Redis's flushAllDataAndResetRDB): a running BGSAVE is stopped (its file would bring the keys back),
     * and with save points set the emptied dataset is saved at once, which resets the change counter as Redis's
     * rdbSave does. The save runs once the command has let go of the stripes (before the client's next command);
     * not during the log's replay, which would write a file of a half-loaded dataset.
     */
    private void flushedAll(Session s) {
        saver.abortBackground();
        if (savePointsSet() && !s.replaying()) {
            Session client = s.scriptCaller() != null ? s.scriptCaller() : s;
            client.afterReply(() -> {
                try {
                    saver.save();
                } catch (IllegalStateException busy) { // the stopped BGSAVE has not ended yet: its cron save follows
                    Log.warning("FLUSHALL could not save the empty dataset: " + busy.getMessage());
                }
            });
        }
    }

    /** Whether {@code save} points are configured (Redis keeps a replicas' RDB child then, even with no replica left). */
    public boolean savePointsSet() {
        return !SavePoints.parseOrNone(config.save.get()).isEmpty();
    }

    /** The options a save uses (compression, checksum, rdb-key-save-delay) with {@code aux} and {@code functions}. */
    public RdbWriter.Options saveOptions(Map<String, Object> aux, List<byte[]> functions) {
        return new RdbWriter.Options(config.rdbcompression.value(), config.rdbchecksum.value(), RdbWriter.Access.NONE, aux, functions)
                .withKeySaveDelay((int) config.rdbKeySaveDelay.value());
    }

    /**
     * SAVE: writes the snapshot on the calling thread. Returns false when it failed (logged); throws
     * {@link IllegalStateException} when a background save is in progress.
     */
    public boolean save() {
        return saver.save();
    }

    /**
     * SHUTDOWN's save: {@link #save()}, but it fails when the keyspace stays locked longer than
     * {@link RdbSaver#SHUTDOWN_WAIT_NANOS}: a command or script that does not end must not keep the server from exiting.
     */
    public boolean saveForShutdown() {
        return saver.saveForShutdown();
    }

    /** Outcome of a BGSAVE request. */
    public enum BgsaveStart { STARTED, SCHEDULED, ALREADY_IN_PROGRESS }

    /**
     * BGSAVE [SCHEDULE]. Inside MULTI/EXEC the save is only scheduled (the cron starts it), as Redis
     * does; SCHEDULE matters in Redis only while another child (an AOF rewrite) runs, which Spinel has
     * not, so it starts at once like a plain BGSAVE.
     */
    public BgsaveStart bgsave(boolean inTransaction) {
        return saver.bgsave(inTransaction);
    }

    /** LASTSAVE: Unix seconds of the last successful save (start-up time before any). */
    public long lastSave() {
        return saver.lastSave();
    }

    // ---------------------------------------------------------------- cron and shutdown

    /** Called by the server cron: the log's automatic rewrite, then a scheduled BGSAVE or one due by the {@code save} points. */
    public void cron() {
        if (enablePending && !bgsaveInProgress() && !rewriteInProgress() && !rewrites.limited()) {
            synchronized (this) {
                if (enablePending && aof == null) {
                    startLog();
                    enablePending = false; // only now: INFO never shows the rewrite neither scheduled nor running
                }
            }
        }
        if (rewriteScheduled && !bgsaveInProgress() && !rewriteInProgress() && !rewrites.limited()) {
            rewriteScheduled = false;
            try {
                rewriteAof();
            } catch (IOException | RuntimeException e) {
                Log.warning("Can't start the scheduled AOF rewrite: " + e.getMessage());
            }
        }
        Aof a = aof;
        if (a != null) {
            a.autoRewrite();
        }
        saver.cron();
    }

    /** Marks the shutdown as handled without saving (SHUTDOWN NOSAVE). */
    public void skipShutdownSave() {
        saver.skipShutdownSave();
    }

    /**
     * The final save at shutdown (SHUTDOWN, SIGTERM): when save points are configured, waits for a
     * running BGSAVE and saves synchronously. Runs at most once per server; returns false only when
     * a save was needed and failed.
     */
    public boolean saveOnShutdown() {
        return saver.saveOnShutdown();
    }

    // ---------------------------------------------------------------- INFO

    /** The INFO {@code persistence} section body after {@code loading}/{@code async_loading}, Redis 7.0's fields in its order. */
    public void appendInfo(StringBuilder sb) {
        saver.appendInfo(sb);
        line(sb, "aof_enabled", aof != null || enablePending ? 1 : 0);
        Aof rw = rewriter();
        line(sb, "aof_rewrite_in_progress", rw != null && rw.rewriting() ? 1 : 0);
        line(sb, "aof_rewrite_scheduled", rewriteScheduled || enablePending ? 1 : 0);
        line(sb, "aof_last_rewrite_time_sec", -1);
        line(sb, "aof_current_rewrite_time_sec", -1);
        sb.append("aof_last_bgrewrite_status:").append(rewrites.lastOk() ? "ok" : "err").append("\r\n");
        line(sb, "aof_rewrites", rewrites.done());
        line(sb, "aof_rewrites_consecutive_failures", rewrites.consecutiveFailures());
        sb.append("aof_last_write_status:").append(aof == null || aof.lastWriteOk() ? "ok" : "err").append("\r\n");
        line(sb, "aof_last_cow_size", 0);
        line(sb, "module_fork_in_progress", 0);
        line(sb, "module_fork_last_cow_size", 0);
        Aof on = aof;
        if (on != null) { // Redis 7.0 adds these while the log is on
            line(sb, "aof_current_size", on.currentSize());
            line(sb, "aof_base_size", on.baseSize());
            line(sb, "aof_pending_rewrite", 0);
            line(sb, "aof_buffer_length", 0);
            line(sb, "aof_pending_bio_fsync", 0);
            line(sb, "aof_delayed_fsync", 0);
        }
    }
}
