package dev.spinel.client;

/** A position as the geo commands report it: longitude then latitude, in degrees. Immutable. */
public record GeoCoordinates(double longitude, double latitude) {
}
