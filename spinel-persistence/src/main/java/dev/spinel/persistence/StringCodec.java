package dev.spinel.persistence;

import dev.spinel.store.GrowableString;
import dev.spinel.store.ValueType;

/**
 * Strings: {@link Rdb#TYPE_STRING} with Redis's int, LZF or raw encoding.
 *
 * <p>A string value is a {@code byte[]} that commands never modify after storing it (they store a new
 * array), so a snapshot keeps the reference instead of copying; a short string held in its entry's fields is
 * snapshotted as the entry, whose fields never change ({@link dev.spinel.store.Entry#storedValue()}); a string
 * changed in place ({@link GrowableString}) is frozen, so that its next change copies it. Stateless
 * and thread-safe.
 */
public final class StringCodec implements ValueCodec {
    private static final int[] TYPES = {Rdb.TYPE_STRING};

    @Override
    public ValueType type() {
        return ValueType.STRING;
    }

    @Override
    public int rdbType(Object snapshot) {
        return Rdb.TYPE_STRING;
    }

    @Override
    public int[] readTypes() {
        return TYPES.clone();
    }

    @Override
    public Object snapshot(Object value) {
        if (value instanceof GrowableString g) {
            g.freeze(); // under the segment's lock: the next in-place write copies it instead
        }
        return value;
    }

    @Override
    public void write(Object snapshot, RdbOutput out) {
        out.writeStringValue(snapshot);
    }

    @Override
    public Object read(int rdbType, RdbInput in) {
        return in.readString();
    }
}
