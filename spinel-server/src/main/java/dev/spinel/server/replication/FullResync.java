package dev.spinel.server.replication;

import dev.spinel.persistence.RdbWriter;
import dev.spinel.persistence.ValueCodecs;
import dev.spinel.protocol.Version;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.log.Log;
import dev.spinel.server.scripting.FunctionLibraries;
import dev.spinel.store.Keyspace;

import java.io.ByteArrayOutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The RDB of a full resync: a point-in-time snapshot armed under every stripe together with the
 * replica's attachment to the stream (so the image and {@code +FULLRESYNC}'s offset match exactly),
 * then written on a thread of its own, without stopping writers (Spinel's BGSAVE without fork), and
 * handed to the {@link ReplicaLink}, which sends it disk-style ({@code $<len>\r\n<rdb>}).
 *
 * <p>Thread-safety: {@link #begin} runs on the replica's event loop; the write runs on its own thread.
 */
final class FullResync {
    private FullResync() {
    }

    /** Attaches {@code link} at the snapshot's offset and starts writing the RDB; returns the offset. */
    static long begin(Engine engine, FunctionLibraries libraries, ReplicationStream stream, ReplicaLink link, String replid, boolean compression) {
        Keyspace ks = engine.keyspace();
        RdbWriter writer = new RdbWriter(ValueCodecs.standard());
        RdbWriter.Snapshot snap;
        List<byte[]> functions;
        long offset;
        ks.lockAll();
        try {
            offset = stream.attachAtSnapshot(link);
            snap = writer.arm(ks, RdbWriter.Access.NONE);
            functions = libraries.codes();
        } finally {
            ks.unlockAll();
        }
        Map<String, Object> aux = RdbWriter.Options.redisAux(Version.REDIS, 0, false);
        Map<String, Object> withRepl = new LinkedHashMap<>(aux);
        withRepl.put("repl-stream-db", 0L);
        withRepl.put("repl-id", replid);
        withRepl.put("repl-offset", offset);
        RdbWriter.Options options = new RdbWriter.Options(compression, true, RdbWriter.Access.NONE, withRepl, functions);
        Thread t = new Thread(() -> {
            try {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 16);
                long keys = writer.write(snap, bytes, options);
                Log.notice("Full resync for replica " + link.describe() + ": RDB of " + keys + " keys, " + bytes.size() + " bytes");
                link.rdbReady(bytes.toByteArray());
            } catch (RuntimeException e) {
                link.drop("the RDB for its full resync failed: " + e.getMessage());
            }
        }, "spinel-repl-rdb");
        t.setDaemon(true);
        t.start();
        return offset;
    }
}
