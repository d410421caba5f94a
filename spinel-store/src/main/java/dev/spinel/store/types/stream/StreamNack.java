package dev.spinel.store.types.stream;

/**
 * An entry delivered to a consumer of a group and not acknowledged yet (Redis's streamNACK): shared by
 * the group's pending list and its owner's.
 *
 * <p>Not thread-safe: guarded by the lock of the segment holding the stream.
 */
public final class StreamNack {
    /** When it was last delivered (Unix ms). */
    public long deliveryTime;
    /** How many times it was delivered. */
    public long deliveryCount;
    /** Its current owner. */
    public StreamConsumer consumer;

    public StreamNack(long deliveryTime, long deliveryCount, StreamConsumer consumer) {
        this.deliveryTime = deliveryTime;
        this.deliveryCount = deliveryCount;
        this.consumer = consumer;
    }
}
