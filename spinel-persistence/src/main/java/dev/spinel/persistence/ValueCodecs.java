package dev.spinel.persistence;

import dev.spinel.store.ValueType;

/**
 * The codecs for each value type, looked up by Spinel type (writing) and by RDB type byte (reading).
 * {@link #standard()} holds the codecs of every type Spinel implements; collection families call
 * {@link #register} on it at start-up.
 *
 * <p>Thread-safety: lookups read volatile copy-on-write arrays; {@link #register} is synchronized.
 */
public final class ValueCodecs {
    private static final ValueCodecs STANDARD = new ValueCodecs();

    static {
        STANDARD.register(new StringCodec());
    }

    private volatile ValueCodec[] byType = new ValueCodec[ValueType.values().length];
    private volatile ValueCodec[] byRdbType = new ValueCodec[256];

    public static ValueCodecs standard() {
        return STANDARD;
    }

    /** Adds (or replaces) the codec of its type. */
    public synchronized void register(ValueCodec codec) {
        ValueCodec[] t = byType.clone();
        t[codec.type().ordinal()] = codec;
        ValueCodec[] r = byRdbType.clone();
        for (int rdbType : codec.readTypes()) {
            r[rdbType] = codec;
        }
        byRdbType = r;
        byType = t;
    }

    /** The codec for a stored value, or {@code null} when its type has none. */
    public ValueCodec forValue(Object value) {
        return byType[ValueType.of(value).ordinal()];
    }

    /** The codec of the type whose {@link ValueType#ordinal()} is {@code ordinal}, or {@code null}. */
    public ValueCodec forType(int ordinal) {
        return byType[ordinal];
    }

    /** The codec reading RDB type {@code rdbType}, or {@code null}. */
    public ValueCodec forRdbType(int rdbType) {
        return rdbType >= 0 && rdbType < 256 ? byRdbType[rdbType] : null;
    }
}
