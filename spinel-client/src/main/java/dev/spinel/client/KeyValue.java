package dev.spinel.client;

/** A key and a value, as BLPOP/BRPOP answer. Immutable if its parts are. */
public record KeyValue<K, V>(K key, V value) {
}
