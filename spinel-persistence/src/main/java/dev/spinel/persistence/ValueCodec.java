package dev.spinel.persistence;

import dev.spinel.store.ValueType;

/**
 * Serializes the values of one Redis type in RDB form, for snapshots, DUMP/RESTORE and loading.
 * To add a type (lists, hashes, sets, sorted sets): implement this interface and register it with
 * {@link ValueCodecs#register}; the writer, the reader and DUMP/RESTORE then handle the type with no
 * other change.
 *
 * <ul>
 *   <li>{@link #snapshot} runs with the key's segment lock held, while a snapshot walks the segment: it
 *       returns something {@link #write} can serialize later without the lock (an immutable value as is,
 *       a mutable collection copied or pre-encoded). It must be quick: writers of that stripe wait.</li>
 *   <li>{@link #write} writes the value body (after the type byte) and returns nothing; the writer has
 *       already written {@link #rdbType}'s byte and the key.</li>
 *   <li>{@link #read} decodes the body of any RDB type listed by {@link #readTypes} (a type may accept
 *       several, e.g. Redis's listpack and plain encodings) into a value ready to store.</li>
 * </ul>
 *
 * <p>Implementations must be stateless and thread-safe: saves, DUMPs and loads run concurrently.
 */
public interface ValueCodec {
    /** The Spinel type this codec writes. */
    ValueType type();

    /** The RDB type byte written for this value (e.g. {@link Rdb#TYPE_STRING}). */
    int rdbType(Object snapshot);

    /** The RDB type bytes {@link #read} accepts. */
    int[] readTypes();

    /** A lock-free-readable form of {@code value}; called with the segment lock held. */
    Object snapshot(Object value);

    /** Writes the body of a value returned by {@link #snapshot}. */
    void write(Object snapshot, RdbOutput out);

    /** Reads a body of RDB type {@code rdbType}; returns a {@code byte[]} or a {@code TypedValue}. */
    Object read(int rdbType, RdbInput in);
}
