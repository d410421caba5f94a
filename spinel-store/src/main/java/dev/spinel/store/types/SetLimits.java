package dev.spinel.store.types;

/**
 * The encoding thresholds of sets and sorted sets (Redis's {@code set-max-intset-entries},
 * {@code zset-max-listpack-entries}, {@code zset-max-listpack-value}), set by the server's
 * configuration and read by the value types when they decide to convert.
 *
 * <p>Thread-safety: fields are volatile; a CONFIG SET is seen by the next command on any thread.
 */
public final class SetLimits {
    private volatile long setMaxIntsetEntries = 512;
    private volatile long zsetMaxListpackEntries = 128;
    private volatile long zsetMaxListpackValue = 64;

    public long setMaxIntsetEntries() {
        return setMaxIntsetEntries;
    }

    public SetLimits setMaxIntsetEntries(long v) {
        setMaxIntsetEntries = v;
        return this;
    }

    public long zsetMaxListpackEntries() {
        return zsetMaxListpackEntries;
    }

    public SetLimits zsetMaxListpackEntries(long v) {
        zsetMaxListpackEntries = v;
        return this;
    }

    public long zsetMaxListpackValue() {
        return zsetMaxListpackValue;
    }

    public SetLimits zsetMaxListpackValue(long v) {
        zsetMaxListpackValue = v;
        return this;
    }
}
