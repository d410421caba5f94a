package dev.spinel.server.engine.ports;

import java.util.List;

/**
 * The second consumer of what the append-only log is given: the replication stream. The propagator
 * hands it exactly the frames it appends to the log (same rewrites, same MULTI/EXEC wrapping), with the
 * database each was executed in; the feed emits its own SELECTs, as Redis's replication stream does.
 *
 * <p>Thread-safety: called from every event loop concurrently, with the written keys' stripes held
 * (every stripe for keyless writes); implementations serialize appends themselves.
 */
public interface ReplicationFeed {
    /** One command (or one already wrapped MULTI/EXEC block) executed in database {@code db}. */
    void append(int db, byte[] frame, int off, int len);

    /** DEBUG REPLICATE: a command for the replicas only (not the log), with no SELECT (the stream's database). */
    void appendUnlogged(byte[] frame);

    /** A transaction's commands, each with its database ({@code dbs[i][0]}); wrapped in MULTI/EXEC when {@code wrap}. */
    void appendTransaction(List<int[]> dbs, List<byte[]> frames, boolean wrap);
}
