package dev.spinel.store.types.stream;

import java.util.TreeMap;

/**
 * A consumer of a group (Redis 7.0's streamConsumer): its name, when it was last seen and the entries
 * delivered to it and not acknowledged, sorted by ID.
 *
 * <p>Not thread-safe: guarded by the lock of the segment holding the stream.
 */
public final class StreamConsumer {
    public final byte[] name;
    /** Last time it read or claimed (Unix ms). */
    public long seenTime;
    public final TreeMap<StreamId, StreamNack> pending = new TreeMap<>();

    public StreamConsumer(byte[] name, long seenTime) {
        this.name = name;
        this.seenTime = seenTime;
    }
}
