package dev.spinel.client;

import java.util.Map;

/**
 * One entry of a stream: its ID ({@code <ms>-<seq>}) and its field-value pairs in the order they were
 * added. {@code fields} is {@code null} for an entry that was deleted while still pending in a consumer
 * group (XREADGROUP's history and XCLAIM report it so). Immutable if the map is not changed.
 */
public record StreamEntry<K, V>(String id, Map<K, V> fields) {
}
