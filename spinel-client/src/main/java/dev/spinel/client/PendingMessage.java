package dev.spinel.client;

/**
 * One entry of a consumer group's pending list (XPENDING's extended form): its ID, the consumer that
 * holds it, the milliseconds since it was last delivered, and how many times it was delivered.
 */
public record PendingMessage<K>(String id, K consumer, long idleMillis, long deliveries) {
}
