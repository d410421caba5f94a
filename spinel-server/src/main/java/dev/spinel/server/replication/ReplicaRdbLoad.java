package dev.spinel.server.replication;

import dev.spinel.persistence.KeyspaceLoader;
import dev.spinel.persistence.RdbReader;
import dev.spinel.persistence.ValueCodecs;
import dev.spinel.server.log.Log;
import dev.spinel.server.scripting.FunctionError;
import dev.spinel.server.scripting.FunctionLibraries;
import dev.spinel.store.Keyspace;

import java.io.ByteArrayInputStream;
import java.io.IOException;

/**
 * A replica's load of its master's RDB (a full resync): the dataset and the function libraries are
 * replaced under every stripe; as Redis's replica, keys already past their expiry are kept (the master's
 * DELs will come).
 *
 * <p>Thread-safety: stateless; holds every stripe of the keyspace while it loads.
 */
final class ReplicaRdbLoad {
    private ReplicaRdbLoad() {
    }

    /** Loads {@code rdb} in place of the dataset and returns its repl-stream-db (0 when it names none). */
    static int load(Keyspace ks, FunctionLibraries functions, byte[] rdb) throws IOException {
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
            }).keepExpired();
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
}
