package dev.spinel.store;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A byte string usable as a map key (channel names, watched keys). Immutable; thread-safe. */
public final class ByteKey implements Comparable<ByteKey> {
    private final byte[] bytes;
    private final int hash;

    public ByteKey(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    public byte[] bytes() {
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ByteKey k && k.hash == hash && Arrays.equals(k.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public int compareTo(ByteKey o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public String toString() {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
