package dev.spinel.client;

import java.util.Map;

/**
 * XPENDING's summary of a consumer group: how many entries are pending, the lowest and highest pending
 * IDs ({@code null} when none), and how many each consumer holds (consumers holding none are absent).
 */
public record PendingSummary<K>(long count, String lowestId, String highestId, Map<K, Long> consumers) {
}
