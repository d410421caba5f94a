package dev.spinel.server.engine.replica;

import java.util.Locale;

/**
 * Whether the server is loading a dataset, as Redis's {@code server.loading} and {@code server.async_loading}:
 * at start-up (the AOF or RDB file, while clients are already served), during DEBUG RELOAD / DEBUG LOADAOF, and
 * on a replica loading its master's dataset. A blocking load does not serve the dataset: commands without Redis's
 * {@code loading} flag get {@code -LOADING}; an async one ({@code repl-diskless-load swapdb} from the same
 * replication history) serves the old dataset meanwhile, only commands flagged {@code no_async_loading} are
 * refused. INFO persistence's {@code loading} / {@code async_loading} and, during a load, the {@code loading_*}
 * progress fields; CONFIG SET of {@code appendonly}, {@code repl-diskless-load} and {@code dir} is refused during
 * either, as Redis's DENY_LOADING_CONFIG. A load can be abandoned (SHUTDOWN during the start-up load): the
 * loader's per-key hook then stops it ({@link #checkAbandoned}).
 *
 * <p>Thread-safety: volatile fields; one load at a time writes them (the loading thread), dispatch and INFO read
 * them on any thread.
 */
public final class DatasetLoading {
    public static final String LOADING = "LOADING Redis is loading the dataset in memory";
    private static final int NONE = 0;
    private static final int BLOCKING = 1;
    private static final int ASYNC = 2;

    private volatile int state = NONE;
    private volatile long startSeconds;
    private volatile long totalBytes;
    private volatile long loadedBytes;
    private volatile long rdbUsedMem;
    private volatile boolean abandoned;
    /** Between {@link #beginStartup} and {@link #endStartup}. */
    private volatile boolean startup;
    /** Run once by {@link #known}, then forgotten (see {@link #whenKnown}). */
    private volatile Runnable onKnown;

    /** Thrown by {@link #checkAbandoned} into the loader once the load is abandoned. */
    public static final class Abandoned extends RuntimeException {
        public Abandoned() {
            super("the load was abandoned", null, false, false);
        }
    }

    /** A load starts: {@code async} serves the old dataset meanwhile. */
    public void begin(boolean async) {
        begin(async, 0);
    }

    /** A load of {@code totalBytes} starts (INFO's loading_total_bytes); {@code async} serves the old dataset meanwhile. */
    public void begin(boolean async, long totalBytes) {
        startSeconds = System.currentTimeMillis() / 1000;
        this.totalBytes = totalBytes;
        loadedBytes = 0;
        rdbUsedMem = 0;
        state = async ? ASYNC : BLOCKING;
    }

    /** How far the load is: {@code bytes} of the total read so far (Redis updates it every 2 MB or 1024 commands). */
    public void progress(long bytes) {
        loadedBytes = bytes;
    }

    /** The {@code used-mem} the RDB being loaded names (INFO's loading_rdb_used_mem). */
    public void rdbUsedMem(long bytes) {
        rdbUsedMem = bytes;
    }

    /** The load ended (loaded, or failed); during the start-up's load the start itself ends it ({@link #endStartup}). */
    public void end() {
        if (!startup) {
            state = NONE;
        }
        known();
    }

    /**
     * The start-up's load begins: the loaders' own {@link #end} (run when their file is read, or has failed) leaves
     * the server loading until the start calls {@link #endStartup}, after a failure only once it has closed the
     * port and the event loops. Redis exits right after logging why its load failed; a PING in between must not get
     * a PONG from the empty keyspace (nor a write an OK) of a server about to exit.
     */
    public void beginStartup() {
        startup = true;
        begin(false);
    }

    /** The start-up's load is over (see {@link #beginStartup}). */
    public void endStartup() {
        startup = false;
        end();
    }

    /**
     * Runs {@code r} once what INFO shows of the coming load is known (its sizes and the RDB's used-mem, read before
     * its first key), or once it ended: the start-up holds its clients until then, as Redis serves none before its
     * loader first processes events, so that none sees the load without its sizes.
     */
    public void whenKnown(Runnable r) {
        onKnown = r;
    }

    /** Called by the loader before its first key or command: what INFO shows of the load is set. */
    public void known() {
        Runnable r = onKnown;
        if (r != null) {
            onKnown = null;
            r.run();
        }
    }

    /** Stops the load in progress, if any, at its next key: true when one was in progress. */
    public boolean abandon() {
        if (state == NONE) {
            return false;
        }
        abandoned = true;
        return true;
    }

    /** Called by a loader before each key or command: throws {@link Abandoned} once {@link #abandon} was called. */
    public void checkAbandoned() {
        if (abandoned) {
            throw new Abandoned();
        }
    }

    /** INFO's {@code loading}: a load that does not serve the old dataset. */
    public boolean blocking() {
        return state == BLOCKING;
    }

    /** INFO's {@code async_loading}. */
    public boolean async() {
        return state == ASYNC;
    }

    /** Either kind of load (Redis's {@code server.loading}, which is also set during an async load). */
    public boolean any() {
        return state != NONE;
    }

    /** INFO persistence's first fields, {@code loading} and {@code async_loading}; returns {@code sb}. */
    public StringBuilder appendInfo(StringBuilder sb) {
        int s = state;
        return sb.append("loading:").append(s == BLOCKING ? 1 : 0).append("\r\nasync_loading:").append(s == ASYNC ? 1 : 0)
                .append("\r\n");
    }

    /** INFO persistence's last fields during a load, Redis 7.0's {@code loading_*} (its ETA formula included). */
    public void appendProgress(StringBuilder sb) {
        if (state == NONE) {
            return;
        }
        long total = totalBytes;
        long loaded = loadedBytes;
        double perc = 0;
        long remaining = 1;
        if (total != 0) {
            perc = (double) loaded / total * 100;
            remaining = total - loaded;
        }
        long elapsed = System.currentTimeMillis() / 1000 - startSeconds;
        long eta = elapsed == 0 ? 1 : elapsed * remaining / (loaded + 1); // Redis's fake 1 s while it knows nothing
        sb.append("loading_start_time:").append(startSeconds).append("\r\n")
                .append("loading_total_bytes:").append(total).append("\r\n")
                .append("loading_rdb_used_mem:").append(rdbUsedMem).append("\r\n")
                .append("loading_loaded_bytes:").append(loaded).append("\r\n")
                .append("loading_loaded_perc:").append(String.format(Locale.ROOT, "%.2f", perc)).append("\r\n")
                .append("loading_eta_seconds:").append(eta).append("\r\n");
    }
}
