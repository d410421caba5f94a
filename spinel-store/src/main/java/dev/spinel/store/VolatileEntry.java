package dev.spinel.store;

/** An {@link Entry} with a time to live. Guarded by its segment's lock. */
final class VolatileEntry extends Entry {
    long expireAt;

    VolatileEntry(byte[] key, Object value, long expireAt) {
        super(key, value);
        this.expireAt = expireAt;
    }

    @Override
    public long expireAt() {
        return expireAt;
    }
}
