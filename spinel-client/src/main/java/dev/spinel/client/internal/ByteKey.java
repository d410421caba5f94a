package dev.spinel.client.internal;

import java.util.Arrays;

/** A byte string compared by content, for sets of channel names. Immutable (the array is never changed). */
record ByteKey(byte[] bytes) {
    @Override
    public boolean equals(Object o) {
        return o instanceof ByteKey k && Arrays.equals(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }
}
