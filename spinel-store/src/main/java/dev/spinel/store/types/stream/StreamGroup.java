package dev.spinel.store.types.stream;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * A consumer group (Redis 7.0's streamCG): the last ID delivered, the logical count of entries read
 * (for the lag), the pending entries list (PEL) and the consumers sorted by name as Redis's rax.
 *
 * <p>Not thread-safe: guarded by the lock of the segment holding the stream.
 */
public final class StreamGroup {
    /** Redis's SCG_INVALID_ENTRIES_READ. */
    public static final long INVALID_ENTRIES_READ = -1;

    public long lastMs;
    public long lastSeq;
    public long entriesRead;
    public final TreeMap<StreamId, StreamNack> pending = new TreeMap<>();
    public final TreeMap<byte[], StreamConsumer> consumers = new TreeMap<>(Arrays::compareUnsigned);

    public StreamGroup(long lastMs, long lastSeq, long entriesRead) {
        this.lastMs = lastMs;
        this.lastSeq = lastSeq;
        this.entriesRead = entriesRead;
    }

    /** A deep copy (consumers and NACKs copied, shared between the copies' lists as in the original). */
    public StreamGroup copy() {
        StreamGroup g = new StreamGroup(lastMs, lastSeq, entriesRead);
        for (StreamConsumer c : consumers.values()) {
            g.consumers.put(c.name, new StreamConsumer(c.name, c.seenTime));
        }
        for (Map.Entry<StreamId, StreamNack> e : pending.entrySet()) {
            StreamNack n = e.getValue();
            StreamConsumer owner = g.consumers.get(n.consumer.name);
            StreamNack copy = new StreamNack(n.deliveryTime, n.deliveryCount, owner);
            g.pending.put(e.getKey(), copy);
            owner.pending.put(e.getKey(), copy);
        }
        return g;
    }

    /**
     * Approximate heap bytes, O(1) (it runs around every write to the stream): a consumer counted at
     * 112 bytes whatever its name, a pending entry at 136 (its NACK, ID and the two tree nodes).
     */
    public long memoryUsage() {
        return 64 + consumers.size() * 112L + pending.size() * 136L;
    }
}
