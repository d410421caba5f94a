package dev.spinel.protocol;

/**
 * The versions a Spinel build reports: the Redis level it speaks (INFO's {@code redis_version}, HELLO,
 * Lua's {@code REDIS_VERSION}, the {@code redis-ver} field of the RDB files it writes) and its own.
 * Here, at the bottom of the layers, so the server, its durability code and the RDB format can all
 * read them without depending on each other.
 */
public final class Version {
    /** The Redis command level implemented, reported as {@code redis_version}. */
    public static final String REDIS = "7.0.15";
    /** Spinel's own release, reported as {@code spinel_version}. */
    public static final String SPINEL = "0.1.0";

    private Version() {
    }
}
