package dev.spinel.client;

/**
 * One member found by GEOSEARCH, with what the search asked for: the distance from the centre (in the
 * search's unit, as the server rounds it: 4 decimals), the 52-bit geohash score, the position; each
 * {@code null} when not requested. Immutable if the member is.
 */
public record GeoResult<V>(V value, Double distance, Long hash, GeoCoordinates coordinates) {
}
