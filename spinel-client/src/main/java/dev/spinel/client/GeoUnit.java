package dev.spinel.client;

/** The distance units of the geo commands: meters, kilometers, miles, feet. */
public enum GeoUnit {
    M, KM, MI, FT
}
