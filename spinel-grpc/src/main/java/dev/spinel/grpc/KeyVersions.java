package dev.spinel.grpc;

import dev.spinel.store.ByteKey;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Key versions for the gRPC service (semantics in {@code kv.proto}). A global revision counter hands
 * out versions; a side table holds a stamp (version, value object) only for keys the gRPC service
 * has written or observed, so a RESP-only user pays nothing per key.
 *
 * <p>A stamp is valid while the entry still holds the very value object it was taken with: any RESP
 * write that replaces a value (SET, INCR, ...) makes a new object, so {@link #versionOf} notices it
 * under the key's stripe lock and hands out a new version. Writes that change a value in place
 * (collections, APPEND) are caught by the engine's change hook ({@link #bump}), which runs just after
 * the command. Either way the version only grows.
 *
 * <p>Versions are unique across restarts: the counter starts each run at {@link #epochStart} (the start
 * time in milliseconds shifted left by {@link #EPOCH_SHIFT} bits), and a key that has no stamp yet (every
 * key, after a restart) gets its version from the counter. A version read before a restart is therefore
 * below every version handed out after it, so it never matches again (no ABA through a crash), as long
 * as the earlier run handed out fewer than 2^20 versions per millisecond of its life on average (each
 * takes a stripe lock, an atomic increment and a map write: orders of magnitude slower) and the clock
 * did not step back by more than that run's down time. See docs/grpc.md.
 *
 * <p>Thread-safety: thread-safe. {@link #versionOf}, {@link #written}, {@link #deleted}, {@link #bump} and
 * {@link #forget} must be called with the key's stripe lock held (so a key's stamp changes in step with its
 * entry): a stamp's fields are then changed in place, read and written only under that lock, whose release
 * publishes them; the map itself only publishes a stamp's insertion and removal.
 */
final class KeyVersions {
    /** Bits of a version below the start time: 2^20 versions per millisecond of a run. */
    static final int EPOCH_SHIFT = 20;

    private final AtomicLong revision;

    KeyVersions() {
        this(System.currentTimeMillis());
    }

    /** Versions of a run started at {@code startMillis} (Unix time). */
    KeyVersions(long startMillis) {
        this.revision = new AtomicLong(epochStart(startMillis));
    }

    /**
     * The first revision of a run started at {@code startMillis}: above every version of a run started
     * earlier that handed out fewer than 2^20 versions per millisecond. Fits an int64 until the year 2248.
     */
    static long epochStart(long startMillis) {
        return startMillis << EPOCH_SHIFT;
    }
    private final ConcurrentHashMap<ByteKey, Stamp> stamps = new ConcurrentHashMap<>();

    /**
     * A key's version and the value object it was taken with. Rewritten in place by a key's next write (under the
     * key's stripe lock, see the class comment): a Batch of Puts spent 12 % of the server's CPU replacing the map's
     * entry (a new stamp, the bin's monitor) per write.
     */
    private static final class Stamp {
        long version;
        Object value;

        Stamp(long version, Object value) {
            this.version = version;
            this.value = value;
        }
    }

    /** The store's revision: the last version handed out. */
    long revision() {
        return revision.get();
    }

    boolean isEmpty() {
        return stamps.isEmpty();
    }

    int size() {
        return stamps.size();
    }

    /** The version of a key whose live entry holds {@code value} (null: absent, version 0). */
    long versionOf(byte[] key, Object value) {
        ByteKey k = new ByteKey(key);
        if (value == null) {
            stamps.remove(k);
            return 0;
        }
        Stamp s = stamps.get(k);
        if (s != null && s.value == value) {
            return s.version;
        }
        return stamp(k, s, value);
    }

    /** A new version for {@code k}, now holding {@code value}: in {@code s} (its stamp), or a new stamp when null. */
    private long stamp(ByteKey k, Stamp s, Object value) {
        long v = revision.incrementAndGet();
        if (s != null) {
            s.version = v;
            s.value = value;
        } else {
            stamps.put(k, new Stamp(v, value));
        }
        return v;
    }

    /** The key now holds {@code value}, written by gRPC: returns its new version. */
    long written(byte[] key, Object value) {
        ByteKey k = new ByteKey(key);
        return stamp(k, stamps.get(k), value);
    }

    /** The key was deleted by gRPC. */
    void deleted(byte[] key) {
        stamps.remove(new ByteKey(key));
        revision.incrementAndGet();
    }

    boolean has(byte[] key) {
        return stamps.containsKey(new ByteKey(key));
    }

    /** Another front end changed the key, possibly in place: its next version must be new. */
    void bump(byte[] key) {
        Stamp s = stamps.get(new ByteKey(key));
        if (s != null) {
            s.version = revision.incrementAndGet();
        }
    }

    /** The key expired (called with its stripe lock held). */
    void forget(byte[] key) {
        if (stamps.remove(new ByteKey(key)) != null) {
            revision.incrementAndGet();
        }
    }

    /** Every key may have changed (FLUSHDB, SWAPDB): all stamps go, so every key gets a new version. */
    void clear() {
        stamps.clear();
        revision.incrementAndGet();
    }
}
