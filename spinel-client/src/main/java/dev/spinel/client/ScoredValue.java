package dev.spinel.client;

/** A sorted-set member and its score. Immutable if the member is. */
public record ScoredValue<V>(V value, double score) {
}
