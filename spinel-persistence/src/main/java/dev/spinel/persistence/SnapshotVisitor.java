package dev.spinel.persistence;

/**
 * Receives a point-in-time image from {@link RdbWriter#walk}: each non-empty database, then its keys.
 *
 * <p>Thread-safety: called by the one thread walking the snapshot; the arrays passed are reused after
 * the call returns (read the key's bytes before returning).
 */
public interface SnapshotVisitor {
    /** A non-empty database begins: the keys and the keys with a TTL it held when the image was armed. */
    void database(int index, long size, long volatileKeys);

    /**
     * One key, {@code key[0, keyLength)}: its codec, {@code snapshot} (what {@link ValueCodec#snapshot}
     * returned), its expiry in Unix ms or -1, and its idle time or LFU counter (0 unless the snapshot
     * records access).
     */
    void key(byte[] key, int keyLength, ValueCodec codec, Object snapshot, long expireAt, long access);
}
