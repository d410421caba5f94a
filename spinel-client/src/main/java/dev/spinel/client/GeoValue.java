package dev.spinel.client;

/** A member to add to a geo set at a position (GEOADD). Immutable if the member is. */
public record GeoValue<V>(V value, double longitude, double latitude) {
}
