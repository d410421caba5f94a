package dev.spinel.store;

/**
 * A stored value other than a string (strings are bare {@code byte[]} to save the wrapper).
 * Implementations are the collection types; they are guarded by the lock of the segment holding the
 * key and must not be shared between keys.
 */
public interface TypedValue {
    ValueType type();

    /** Redis's name for the current encoding, as {@code OBJECT ENCODING} reports it. */
    String encoding();

    /** Approximate heap bytes, for memory accounting and {@code MEMORY USAGE}. */
    long memoryUsage();

    /** A deep copy, for COPY. */
    TypedValue copy();

    /** Number of elements (LLEN/HLEN/SCARD/ZCARD); a key whose value becomes empty is deleted. */
    long size();
}
