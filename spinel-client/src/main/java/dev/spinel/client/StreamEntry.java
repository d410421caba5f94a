package dev.spinel.client;

import java.util.List;

/**
 * A stream entry: its ID ({@code ms-seq}) and its fields in order. {@code fields} is {@code null} for an
 * entry that is still pending in a consumer group but was deleted from the stream (XREADGROUP's
 * history reply). Immutable if its parts are.
 */
public record StreamEntry<K, V>(String id, List<KeyValue<K, V>> fields) {
}
