package dev.spinel.server.stats;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Server-wide counters for INFO stats and errorstats.
 *
 * <p>Thread-safety: concurrent counters, updated from every event loop. Those bumped per command or per
 * read are {@link LoopCounter}s (plain stores on the loops), the rare ones {@link LongAdder}s.
 */
public final class ServerStats {
    public final long startMillis = System.currentTimeMillis();
    public final long startNanos = System.nanoTime();
    public final LoopCounter commandsProcessed = new LoopCounter();
    public final LongAdder connectionsReceived = new LongAdder();
    /** INFO's lazyfreed_objects: values Redis would have freed in the background (see LazyFree). */
    public final LongAdder lazyfreedObjects = new LongAdder();
    public final LongAdder rejectedConnections = new LongAdder();
    /** INFO's evicted_clients: clients disconnected by maxmemory-clients. */
    public final LongAdder evictedClients = new LongAdder();
    public final LoopCounter keyspaceHits = new LoopCounter();
    public final LoopCounter keyspaceMisses = new LoopCounter();
    public final LoopCounter netInputBytes = new LoopCounter();
    public final LoopCounter netOutputBytes = new LoopCounter();
    /** Socket reads and writes (INFO's total_reads_processed / total_writes_processed). */
    public final LoopCounter readsProcessed = new LoopCounter();
    public final LoopCounter writesProcessed = new LoopCounter();
    public final LongAdder totalErrorReplies = new LongAdder();
    /** Errors a replica answered to its master's stream (INFO's unexpected_error_replies). */
    public final LongAdder unexpectedErrorReplies = new LongAdder();
    /** A master's full resyncs served, partial resyncs accepted and refused (INFO's sync_full, sync_partial_ok/err). */
    public final LongAdder syncFull = new LongAdder();
    public final LongAdder syncPartialOk = new LongAdder();
    public final LongAdder syncPartialErr = new LongAdder();
    public final LongAdder dirty = new LongAdder();
    /** Background saves and log rewrites started (Redis's fork children: INFO's total_forks). */
    public final LongAdder totalForks = new LongAdder();
    /** Clients currently parked in a blocking command; blocking commands add 1 on park and -1 on wake. */
    public final LongAdder blockedClients = new LongAdder();
    /** Rates for INFO (instantaneous_ops_per_sec, ...), sampled by the server cron. */
    public final InstantaneousMetrics instantaneous = new InstantaneousMetrics();
    /** fsyncs of the append-only log and the time they took (the metrics endpoint's spinel_aof_fsync_seconds). */
    public final DurationTotal aofFsync = new DurationTotal();
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();

    public void error(String code) {
        totalErrorReplies.increment();
        errors.computeIfAbsent(code, k -> new LongAdder()).increment();
    }

    public Map<String, LongAdder> errors() {
        return errors;
    }

    /** CONFIG RESETSTAT. */
    public void reset() {
        commandsProcessed.reset();
        connectionsReceived.reset();
        rejectedConnections.reset();
        evictedClients.reset();
        keyspaceHits.reset();
        keyspaceMisses.reset();
        netInputBytes.reset();
        netOutputBytes.reset();
        readsProcessed.reset();
        writesProcessed.reset();
        totalErrorReplies.reset();
        unexpectedErrorReplies.reset();
        errors.clear();
        lazyfreedObjects.reset();
        syncFull.reset();
        syncPartialOk.reset();
        syncPartialErr.reset();
        totalForks.reset();
    }
}
