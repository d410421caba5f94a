package dev.spinel.server.durability;

import dev.spinel.persistence.KeyspaceLoader;
import dev.spinel.persistence.RdbException;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.replica.DatasetLoading;
import dev.spinel.server.log.Log;
import dev.spinel.server.scripting.FunctionError;
import dev.spinel.server.scripting.FunctionLibraries;
import dev.spinel.store.Keyspace;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Loading a dataset from {@link Persistence}'s files: {@code dir/dbfilename} at start-up, and the DEBUG
 * commands that replace the dataset with a file's (RELOAD from the RDB, LOADAOF from the append-only files).
 *
 * <p>Thread-safety: during the start-up load clients are served, but only the commands with Redis's {@code loading}
 * flag, which do not touch the dataset; the DEBUG loads hold every stripe while they replace the dataset, so no
 * client sees it half loaded (other clients get -LOADING meanwhile).
 */
final class DatasetLoads {
    private final Persistence persistence;
    private final ServerConfig config;
    private final Keyspace keyspace;
    private final FunctionLibraries functions;
    /** The server's loading state, the engine's once {@link #loading(DatasetLoading)} set it (at start-up). */
    private volatile DatasetLoading loading = new DatasetLoading();
    private volatile boolean keepExpired;

    DatasetLoads(Persistence persistence, ServerConfig config, Keyspace keyspace, FunctionLibraries functions) {
        this.persistence = persistence;
        this.config = config;
        this.keyspace = keyspace;
        this.functions = functions;
    }

    void loading(DatasetLoading l) {
        this.loading = l;
    }

    /** Whether the start-up RDB load keeps keys already expired (a replica's: its master will send their DELs). */
    void keepExpired(boolean keep) {
        this.keepExpired = keep;
    }

    /**
     * Loads {@code dir/dbfilename} if it exists, and returns its loader (what it loaded), or null when there is no
     * file; {@code expired} receives the keys skipped as already expired. Throws {@link RdbException} when it
     * exists but is bad.
     */
    KeyspaceLoader loadRdb(KeyspaceLoader.ExpiredKeys expired) {
        Path file = persistence.rdbPath();
        long start = System.nanoTime();
        if (!Files.exists(file)) {
            return null; // a fresh start: Redis is not loading then
        }
        LoadingProgress progress = new LoadingProgress(config, loading);
        KeyspaceLoader loader = new KeyspaceLoader(keyspace, System.currentTimeMillis(), Persistence.functionLoader(functions))
                .perKey(progress).onExpired(expired)
                .onEmptyKey(key -> Log.warning("rdbLoadObject skipping empty key: " + new String(key, StandardCharsets.UTF_8)));
        if (keepExpired) {
            loader.keepExpired();
        }
        boolean found;
        progress.begin(size(file));
        try {
            found = progress.rdb(keyspace, file, loader) >= 0;
        } catch (IOException e) {
            throw new RdbException("Fatal error loading the DB: " + e.getMessage() + ". Exiting.", e);
        } catch (RdbException e) { // a bad file: Redis's last line (rdbCheckThenExit) after the reason
            throw new RdbException(e.getMessage() + "\nTerminating server after rdb file reading failure.", e);
        } finally {
            progress.end();
        }
        if (!found) {
            return null;
        }
        Log.notice(String.format("DB loaded from disk: %.3f seconds", (System.nanoTime() - start) / 1e9));
        if (loader.emptySkipped() > 0) { // Redis's rdbLoad: a warning then
            Log.warning("Done loading RDB, keys loaded: " + loader.loaded() + ", keys expired: " + loader.expiredSkipped()
                    + ", empty keys skipped: " + loader.emptySkipped() + ".");
        } else {
            Log.notice("Done loading RDB, keys loaded: " + loader.loaded() + ", keys expired: " + loader.expiredSkipped() + ".");
        }
        return loader;
    }

    /**
     * DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE] (Redis's debug.c): saves the snapshot (unless {@code save} is
     * false), empties every database and the function libraries (when {@code flush}), and loads the file
     * back, all under every stripe so that no client sees the dataset half loaded. Without {@code merge} a
     * key or library already present fails the load, as Redis's rdbLoad without RDBFLAGS_ALLOW_DUP does.
     * Returns null on success, else Redis's error text.
     */
    String debugReload(boolean save, boolean flush, boolean merge) {
        if (save) {
            try {
                if (!persistence.save()) {
                    return "ERR";
                }
            } catch (IllegalStateException e) {
                return "ERR";
            }
        }
        keyspace.lockAll();
        try {
            if (flush) {
                keyspace.clearAll();
                functions.flush();
            }
            Consumer<byte[]> libraries = code -> {
                try {
                    functions.load(code, merge);
                } catch (FunctionError e) {
                    throw new RdbException("Failed loading library, " + e.getMessage());
                }
            };
            LoadingProgress progress = new LoadingProgress(config, loading);
            KeyspaceLoader loader = new KeyspaceLoader(keyspace, System.currentTimeMillis(), libraries).perKey(progress);
            if (!merge) {
                loader.refuseExisting();
            }
            progress.begin(size(persistence.rdbPath()));
            boolean found;
            try {
                found = progress.rdb(keyspace, persistence.rdbPath(), loader) >= 0;
            } finally {
                progress.end();
            }
            if (!found) {
                Log.warning("Fatal error loading the DB: No such file or directory.");
                return "ERR Error trying to load the RDB dump";
            }
        } catch (IOException | RuntimeException e) {
            Log.warning("Error loading the RDB dump: " + e.getMessage());
            return "ERR Error trying to load the RDB dump";
        } finally {
            keyspace.unlockAll();
        }
        persistence.reloaded();
        Log.notice("DB reloaded by DEBUG RELOAD");
        return null;
    }

    /**
     * DEBUG LOADAOF (Redis's debug.c): writes out what the log holds in memory, empties every database and the
     * function libraries, and loads the dataset back from the append-only files (base, then increments), all
     * under every stripe. Works with the log on or off, as in Redis, as long as the files exist (Redis exits
     * when they do not, or cannot be loaded; here the command fails with the reason in the log). Returns null
     * on success, else the error text.
     */
    String debugLoadAof() {
        Aof a = persistence.aof();
        if (a != null && !a.drain()) {
            return "ERR Error writing the AOF before loading it";
        }
        Aof reader = a != null ? a : persistence.offlineRewriter();
        if (!reader.exists()) {
            Log.warning("The AOF directory " + reader.dir() + " or its manifest doesn't exist");
            return "ERR Error trying to load the AOF files";
        }
        keyspace.lockAll();
        try {
            keyspace.clearAll();
            functions.flush();
            reader.loadWithoutLogging();
        } catch (IOException | RuntimeException e) {
            Log.warning("Error loading the AOF files: " + e.getMessage());
            return "ERR Error trying to load the AOF files";
        } finally {
            keyspace.unlockAll();
        }
        persistence.reloaded();
        Log.warning("Append Only File loaded by DEBUG LOADAOF");
        return null;
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0; // gone meanwhile: the load says so
        }
    }
}
