package dev.spinel.server.replication;

import dev.spinel.persistence.KeyspaceLoader;
import dev.spinel.persistence.RdbException;
import dev.spinel.persistence.RdbReader;
import dev.spinel.persistence.ValueCodecs;
import dev.spinel.server.durability.LoadDelay;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.log.Log;
import dev.spinel.server.scripting.FunctionError;
import dev.spinel.server.scripting.FunctionLibraries;
import dev.spinel.store.Keyspace;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A replica's load of its master's RDB (a full resync): the dataset and the function libraries are
 * replaced under every stripe; as Redis's replica, keys already past their expiry are kept (the master's
 * DELs will come). With {@code repl-diskless-load swapdb} the RDB is loaded aside instead, as it arrives
 * ({@link #loadAside}).
 *
 * <p>Thread-safety: stateless; holds every stripe of the keyspace while it loads.
 */
final class ReplicaRdbLoad {
    /** Redis's default {@code loading-process-events-interval-bytes}: how often a loading Redis answers clients. */
    static final int EVENTS_INTERVAL_BYTES = 2 * 1024 * 1024;

    private ReplicaRdbLoad() {
    }

    /**
     * Reads a full resync's RDB from the master, disk-style {@code $<len>\r\n<rdb>} or diskless-style
     * {@code $EOF:<40-byte mark>\r\n<rdb><mark>} (newlines before it are the master's keepalives), and loads it;
     * returns its repl-stream-db. {@code sameHistory}: the master's ID is the one we had (swapdb then loads
     * asynchronously, as Redis's async_loading); {@code reading} is called as bytes arrive (the link's last I/O).
     */
    static int fromMaster(StreamReader in, Engine engine, Replication replication, boolean sameHistory, Runnable reading)
            throws IOException {
        String header;
        do {
            header = in.line();
            reading.run();
        } while (header.isEmpty());
        if (!header.startsWith("$")) {
            throw new IOException("Bad protocol from MASTER, the first byte is not '$' (we received '" + header + "')");
        }
        byte[] mark = eofMark(header);
        LoadDelay delay = new LoadDelay(replication.config());
        String mode = replication.config().replDisklessLoad.value();
        if (loadsAside(engine.keyspace(), mode)) {
            InputStream payload = mark != null ? in.payloadUntilMark(mark) : in.payload(Long.parseLong(header.substring(1)));
            return loadAside(engine, mode.equals("swapdb") && sameHistory, payload, replication.functions(), delay, reading);
        }
        byte[] rdb;
        if (mark != null) {
            rdb = in.readUntilMark(mark);
            Log.notice("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to disk");
        } else {
            rdb = new byte[Integer.parseInt(header.substring(1))];
            in.readFully(rdb);
            Log.notice("MASTER <-> REPLICA sync: receiving " + rdb.length + " bytes from master to disk");
        }
        return load(engine, replication.functions(), rdb, delay);
    }

    /** The 40-byte mark of a diskless payload's header ({@code $EOF:<mark>}), or null for a {@code $<length>} one. */
    static byte[] eofMark(String header) throws IOException {
        if (!header.startsWith("$EOF:")) {
            return null;
        }
        byte[] mark = header.substring(5).getBytes(StandardCharsets.US_ASCII);
        if (mark.length != 40) {
            throw new IOException("Bad EOF mark from MASTER: '" + header + "'");
        }
        return mark;
    }

    /**
     * Whether {@code repl-diskless-load} ({@code mode}) loads aside ({@link #loadAside}): swapdb, or on-empty-db
     * while no database holds a key; in cluster mode too (the keyspace loaded aside has a slot index of its own,
     * swapped with the keys).
     */
    static boolean loadsAside(Keyspace ks, String mode) {
        if (mode.equals("swapdb")) {
            return true;
        }
        if (!mode.equals("on-empty-db")) {
            return false;
        }
        for (int i = 0; i < ks.databases(); i++) {
            if (ks.db(i).size() > 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Loads {@code rdb} in place of the dataset and returns its repl-stream-db (0 when it names none). Clients get
     * {@code -LOADING} meanwhile (INFO loading:1), as from Redis's replica loading its received file, when Redis
     * would let them see it: Redis loads on its only thread and serves clients (with -LOADING) once per
     * {@link #EVENTS_INTERVAL_BYTES} loaded, so a smaller file, unless {@code key-load-delay} stretches it, is
     * loaded before any client is answered. Here clients are served by other threads; a key they touch waits on
     * the stripes the load holds, the rest answers as just before the load.
     */
    static int load(Engine engine, FunctionLibraries functions, byte[] rdb, LoadDelay delay) throws IOException {
        engine.replicaRole().keysWithExpire().clear(); // as Redis's emptyData before the load
        engine.stats().lazyfreedObjects.add(lazilyFlushed(engine));
        boolean seen = rdb.length >= EVENTS_INTERVAL_BYTES || delay.active();
        if (seen) {
            engine.replicaRole().loading().begin(false);
        }
        try {
            return load(engine.keyspace(), functions, rdb, delay);
        } finally {
            if (seen) {
                engine.replicaRole().loading().end();
            }
        }
    }

    /**
     * The keys a full resync drops, when {@code replica-lazy-flush} has Redis empty the dataset asynchronously (its
     * emptyData with EMPTYDB_ASYNC counts every key in lazyfreed_objects), else 0. Spinel's GC frees them either way.
     */
    private static long lazilyFlushed(Engine engine) {
        if (!engine.config().replicaLazyFlush.value()) {
            return 0;
        }
        long keys = 0;
        for (int i = 0; i < engine.keyspace().databases(); i++) {
            keys += engine.keyspace().db(i).size();
        }
        return keys;
    }

    private static int load(Keyspace ks, FunctionLibraries functions, byte[] rdb, LoadDelay delay) throws IOException {
        int streamDb = 0;
        ks.lockAll();
        try {
            ks.clearAll();
            functions.flush();
            KeyspaceLoader loader = new KeyspaceLoader(ks, System.currentTimeMillis(), code -> {
                try {
                    functions.load(code, true);
                } catch (FunctionError e) {
                    throw new IllegalStateException("Failed loading library, " + e.getMessage());
                }
            }).keepExpired().perKey(delay);
            new RdbReader(ValueCodecs.standard(), ks.databases()).read(new ByteArrayInputStream(rdb), loader);
            String db = loader.aux().get("repl-stream-db");
            if (db != null) {
                streamDb = Integer.parseInt(db);
            }
            Log.notice("MASTER <-> REPLICA sync: Finished with success (" + loader.loaded() + " keys)");
        } finally {
            ks.unlockAll();
        }
        return streamDb;
    }

    /**
     * {@code repl-diskless-load swapdb} (or {@code on-empty-db} with no keys): the RDB is loaded as it arrives
     * from the socket into a keyspace of its own while the current dataset goes on serving reads (Redis 7.0's
     * async loading), then the two are exchanged under every stripe with the function libraries. A load that
     * fails (the link drops, the payload is corrupt) leaves the current dataset as it was. {@code reading} runs
     * for each byte read after the RDB's checksum (the link's liveness clock).
     */
    static int loadAside(Engine engine, boolean async, InputStream payload, FunctionLibraries functions, LoadDelay delay,
            Runnable reading) throws IOException {
        engine.replicaRole().loading().begin(async);
        try {
            long dropped = lazilyFlushed(engine);
            int db = loadAside(payload, engine.keyspace(), functions, delay, reading);
            engine.stats().lazyfreedObjects.add(dropped); // the old dataset, once swapped out
            engine.replicaRole().keysWithExpire().clear(); // the dataset they were in is gone, as Redis's swapMainDbWithTempDb
            return db;
        } finally {
            engine.replicaRole().loading().end();
        }
    }

    private static int loadAside(InputStream payload, Keyspace ks, FunctionLibraries functions, LoadDelay delay, Runnable reading)
            throws IOException {
        Log.notice("MASTER <-> REPLICA sync: Loading DB in memory");
        Keyspace loaded = ks.emptySibling();
        List<byte[]> libraries = new ArrayList<>();
        KeyspaceLoader loader = new KeyspaceLoader(loaded, System.currentTimeMillis(), libraries::add)
                .keepExpired().perKey(delay);
        try {
            new RdbReader(ValueCodecs.standard(), ks.databases()).read(new BufferedInputStream(payload, 1 << 16), loader);
            while (payload.read() >= 0) {
                reading.run(); // what follows the RDB's checksum up to the payload's end
            }
        } catch (IOException | RuntimeException e) {
            logFailure(e);
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
        ks.swapContents(loaded, () -> {
            functions.flush();
            for (byte[] code : libraries) {
                try {
                    functions.load(code, true);
                } catch (FunctionError e) {
                    Log.warning("Failed loading library from the MASTER's RDB: " + e.getMessage());
                }
            }
        });
        String db = loader.aux().get("repl-stream-db");
        Log.notice("MASTER <-> REPLICA sync: Finished with success (" + loader.loaded() + " keys)");
        return db != null ? Integer.parseInt(db) : 0;
    }

    /**
     * Redis's lines for a load from the socket that failed (rdbReportError, readSyncBulkPayload): a short read (the
     * master closed or the link failed mid-transfer) is taken as a connection error the replica resumes from; a
     * corrupt payload is named as such. The current dataset stays in both cases.
     */
    private static void logFailure(Exception e) {
        long at = e instanceof RdbException r ? r.shortReadAt() : -1;
        Throwable cause = e;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (at >= 0) {
            Log.warning("Short read or OOM loading DB. Unrecoverable error, aborting now.");
            Log.warning("Internal error in RDB reading offset " + at + ", function at RdbInput -> Unexpected EOF reading RDB file. "
                    + "Failure loading rdb format from socket, assuming connection error, resuming operation.");
        } else if (!(e instanceof IOException)) {
            Log.warning("Internal error in RDB reading offset 0, function at RdbReader -> " + e.getMessage() + ". Failure loading rdb format");
        }
        Log.warning("Failed trying to load the MASTER synchronization DB from socket: " + cause.getMessage());
        Log.notice("MASTER <-> REPLICA sync: Discarding temporary DB in background");
    }
}
