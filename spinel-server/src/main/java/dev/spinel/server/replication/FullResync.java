package dev.spinel.server.replication;

import dev.spinel.persistence.RdbWriter;
import dev.spinel.persistence.ValueCodecs;
import dev.spinel.protocol.Version;
import dev.spinel.server.durability.Persistence;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.scripting.FunctionLibraries;
import dev.spinel.store.Keyspace;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.function.IntSupplier;
import java.util.function.LongConsumer;

/**
 * The RDB of a full resync: a point-in-time snapshot armed under every stripe together with the
 * replica's attachment to the stream (so the image and {@code +FULLRESYNC}'s offset match exactly),
 * then written by a {@link ReplicaRdbJob} on a thread of its own, without stopping writers (Spinel's BGSAVE without
 * fork), which hands it to each {@link ReplicaLink} disk-style ({@code $<len>\r\n<rdb>}) or diskless-style.
 *
 * <p>Thread-safety: {@link #begin} runs on the replica's event loop; the write runs on the job's own thread.
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
                      String replid, Lock applyLock, IntSupplier streamDb, Persistence persistence, RdbFilter filter,
                      LongConsumer beforeRdb) {
        Keyspace ks = engine.keyspace();
        RdbWriter writer = new RdbWriter(ValueCodecs.standard());
        RdbWriter.Snapshot snap;
        List<byte[]> functions;
        long offset = -1;
        int db;
        long dirty;
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
                dirty = persistence.changeCounter(); // exact under every stripe, as a BGSAVE reads it
            } finally {
                ks.unlockAll();
            }
        } finally {
            if (applyLock != null) {
                applyLock.unlock();
            }
        }
        Map<String, Object> withRepl = new LinkedHashMap<>(RdbWriter.Options.redisAux(Version.REDIS, 0, false));
        withRepl.put("repl-stream-db", (long) db);
        withRepl.put("repl-id", replid);
        withRepl.put("repl-offset", offset);
        beforeRdb.accept(offset); // the +FULLRESYNC lines go out before the RDB can be handed over
        new ReplicaRdbJob(writer, snap, persistence.saveOptions(withRepl, functions), links, persistence, dirty).start();
        return offset;
    }
}
