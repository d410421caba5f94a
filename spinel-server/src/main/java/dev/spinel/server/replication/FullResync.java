package dev.spinel.server.replication;

import dev.spinel.persistence.RdbWriter;
import dev.spinel.persistence.ValueCodecs;
import dev.spinel.protocol.Version;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.log.Log;
import dev.spinel.server.scripting.FunctionLibraries;
import dev.spinel.store.Keyspace;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.function.IntSupplier;
import java.util.function.LongConsumer;

/**
 * The RDB of a full resync: a point-in-time snapshot armed under every stripe together with the
 * replica's attachment to the stream (so the image and {@code +FULLRESYNC}'s offset match exactly),
 * then written on a thread of its own, without stopping writers (Spinel's BGSAVE without fork), and
 * handed to each {@link ReplicaLink}, which sends it disk-style ({@code $<len>\r\n<rdb>}) or diskless-style.
 *
 * <p>Thread-safety: {@link #begin} runs on the replica's event loop; the write runs on its own thread.
 */
final class FullResync {
    private FullResync() {
    }

    /**
     * Attaches {@code links} at the snapshot's offset and starts writing one RDB for them; returns the offset.
     * {@code applyLock} (a replica's: held while it applies one command of its master's stream) is taken
     * first, so the snapshot falls between two commands; {@code streamDb} is then the database the stream
     * is in (the RDB's repl-stream-db: a replica forwards its master's stream without adding a SELECT).
     * {@code filter} is what of the RDB the replicas asked for (REPLCONF rdb-filter-only): without the keys, no
     * snapshot is armed. {@code beforeRdb} gets the offset before the RDB is written (so it is told before any link gets it).
     */
    static long begin(Engine engine, FunctionLibraries libraries, ReplicationStream stream, List<ReplicaLink> links,
                      String replid, Lock applyLock, IntSupplier streamDb, boolean compression, RdbFilter filter,
                      LongConsumer beforeRdb) {
        Keyspace ks = engine.keyspace();
        RdbWriter writer = new RdbWriter(ValueCodecs.standard());
        RdbWriter.Snapshot snap;
        List<byte[]> functions;
        long offset = -1;
        int db;
        if (applyLock != null) {
            applyLock.lock();
        }
        try {
            ks.lockAll();
            try {
                for (ReplicaLink link : links) {
                    offset = stream.attachAtSnapshot(link, applyLock == null);
                }
                snap = filter.excludeData ? null : writer.arm(ks, RdbWriter.Access.NONE);
                functions = filter.excludeFunctions ? List.of() : libraries.codes();
                db = streamDb.getAsInt();
            } finally {
                ks.unlockAll();
            }
        } finally {
            if (applyLock != null) {
                applyLock.unlock();
            }
        }
        Map<String, Object> aux = RdbWriter.Options.redisAux(Version.REDIS, 0, false);
        Map<String, Object> withRepl = new LinkedHashMap<>(aux);
        withRepl.put("repl-stream-db", (long) db);
        withRepl.put("repl-id", replid);
        withRepl.put("repl-offset", offset);
        RdbWriter.Options options = new RdbWriter.Options(compression, true, RdbWriter.Access.NONE, withRepl, functions);
        beforeRdb.accept(offset); // the +FULLRESYNC lines go out before the RDB can be handed over
        Thread t = new Thread(() -> {
            try {
                if (links.getFirst().diskless()) { // streamed as written; disk-style needs its length first
                    for (ReplicaLink link : links) {
                        link.rdbStreamStart();
                    }
                    RdbStreamOut out = new RdbStreamOut(links);
                    long keys = write(writer, snap, out, options);
                    long size = out.finish();
                    for (ReplicaLink link : links) {
                        link.rdbStreamEnd();
                    }
                    Log.notice("Full resync for " + links.size() + " replica(s): RDB of " + keys + " keys, " + size + " bytes streamed");
                    return;
                }
                ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 16);
                long keys = write(writer, snap, bytes, options);
                byte[] rdb = bytes.toByteArray();
                Log.notice("Full resync for " + links.size() + " replica(s): RDB of " + keys + " keys, " + rdb.length + " bytes");
                for (ReplicaLink link : links) {
                    link.rdbReady(rdb);
                }
            } catch (IOException | RuntimeException e) {
                for (ReplicaLink link : links) {
                    link.drop("the RDB for its full resync failed: " + e.getMessage());
                }
            }
        }, "spinel-repl-rdb");
        t.setDaemon(true);
        t.start();
        return offset;
    }

    /** The snapshot's RDB, or with no snapshot (the keys filtered out) the header, functions and footer. */
    private static long write(RdbWriter writer, RdbWriter.Snapshot snap, OutputStream out, RdbWriter.Options options) {
        if (snap == null) {
            RdbWriter.writeWithoutKeys(out, options);
            return 0;
        }
        return writer.write(snap, out, options);
    }
}
