package dev.spinel.client;

import java.util.List;

/**
 * XAUTOCLAIM's answer: the ID to pass as {@code start} next time ({@code 0-0} when the scan is complete),
 * the entries claimed, and the IDs of pending entries that no longer exist in the stream (removed from
 * the pending list by this call).
 */
public record AutoClaimResult<K, V>(String nextId, List<StreamEntry<K, V>> entries, List<String> deletedIds) {
}
