package dev.spinel.server.durability;

import dev.spinel.persistence.KeyspaceLoader;
import dev.spinel.persistence.RdbFiles;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.replica.DatasetLoading;
import dev.spinel.store.Keyspace;

import java.io.IOException;
import java.nio.file.Path;

/**
 * One load of dataset files (the start-up load, DEBUG RELOAD, DEBUG LOADAOF) as clients see it: the server is
 * {@link DatasetLoading loading} from {@link #begin} to {@link #end} (commands without the {@code loading} flag get
 * {@code -LOADING}, INFO shows {@code loading:1} and the progress), the bytes read so far across the files, and
 * the hook run before each key or replayed command: it stops an abandoned load (SHUTDOWN during the start-up load)
 * and pauses {@code key-load-delay}.
 *
 * <p>Thread-safety: used by the loading thread only; what others read is in {@link DatasetLoading}.
 */
final class LoadingProgress implements Runnable {
    private final DatasetLoading loading;
    private final LoadDelay delay;
    /** The bytes of the files already loaded (the AOF's base before its increments). */
    private long done;
    /** The RDB loader until its first key, when its used-mem is known. */
    private KeyspaceLoader rdbLoader;
    /** Until the first key or command: then what INFO shows of the load is set ({@link DatasetLoading#known}). */
    private boolean first = true;

    LoadingProgress(ServerConfig config, DatasetLoading loading) {
        this.loading = loading;
        this.delay = new LoadDelay(config);
    }

    void begin(long totalBytes) {
        loading.begin(false, totalBytes);
    }

    void end() {
        loading.end();
    }

    /** {@code bytes} of the current file were read. */
    void at(long bytes) {
        loading.progress(done + bytes);
    }

    /** The current file ({@code size} bytes) is loaded; the next one's bytes count after it. */
    void fileDone(long size) {
        done += size;
        loading.progress(done);
    }

    /** The loaded RDB's {@code used-mem} aux field (INFO's loading_rdb_used_mem), when it names a number. */
    void usedMem(String value) {
        if (value != null) {
            try {
                loading.rdbUsedMem(Long.parseLong(value));
            } catch (NumberFormatException e) {
                // not a number: Redis's strtoll would read 0 too
            }
        }
    }

    /**
     * Loads an RDB file (or an AOF's RDB preamble) through {@code loader} (whose per-key hook this is), its progress
     * and used-mem shown; returns the length of the RDB read, -1 when the file does not exist.
     */
    long rdb(Keyspace keyspace, Path file, KeyspaceLoader loader) throws IOException {
        rdbLoader = loader; // its used-mem aux field, read before the file's first key
        return RdbFiles.loadPrefix(keyspace, file, loader, this::at);
    }

    @Override
    public void run() {
        KeyspaceLoader l = rdbLoader;
        if (l != null) { // the first key: the aux fields were read
            rdbLoader = null;
            usedMem(l.aux().get("used-mem"));
        }
        if (first) {
            first = false;
            loading.known();
        }
        loading.checkAbandoned();
        delay.run();
    }
}
