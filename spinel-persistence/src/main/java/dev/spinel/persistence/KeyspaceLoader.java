package dev.spinel.persistence;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;

/**
 * An {@link RdbSink} that stores what it reads into a keyspace, as Redis's {@code rdbLoad} does for a
 * master: keys already expired are skipped, a key seen twice keeps its last value, and the LRU idle
 * time or LFU counter of the file is applied when the keyspace tracks that kind of stamp.
 *
 * <p>Thread-safety: takes each key's segment lock while storing it, so it may run while the server
 * already serves (it normally runs before the server accepts connections).
 */
public final class KeyspaceLoader implements RdbSink {
    private final Keyspace keyspace;
    private final long now;
    private long loaded;
    private long expiredSkipped;
    private long emptySkipped;
    private Consumer<byte[]> emptyKeys;

    private final Consumer<byte[]> functions;
    private boolean refuseExisting;
    private Runnable perKey;
    private boolean keepExpired;
    private ExpiredKeys expired;
    private final Map<String, String> aux = new LinkedHashMap<>();

    public KeyspaceLoader(Keyspace keyspace, long now) {
        this(keyspace, now, null);
    }

    /** @param functions receives each function library's code; null refuses files that hold functions */
    public KeyspaceLoader(Keyspace keyspace, long now, Consumer<byte[]> functions) {
        this.keyspace = keyspace;
        this.now = now;
        this.functions = functions;
    }

    /** Keeps the file's AUX fields (a few: redis-ver, repl-id, repl-offset, ...), see {@link #aux()}. */
    @Override
    public void aux(byte[] key, byte[] value) {
        aux.put(new String(key, StandardCharsets.UTF_8), new String(value, StandardCharsets.UTF_8));
    }

    /** The AUX fields read so far, by name (the replication info a restarted server continues from). */
    public Map<String, String> aux() {
        return aux;
    }

    @Override
    public void function(byte[] code) {
        if (functions == null) {
            RdbSink.super.function(code);
        } else {
            functions.accept(code);
        }
    }

    /**
     * Makes a key the keyspace already holds fail the load (Redis's rdbLoad without RDBFLAGS_ALLOW_DUP, as
     * DEBUG RELOAD NOFLUSH without MERGE), instead of replacing it.
     */
    public KeyspaceLoader refuseExisting() {
        refuseExisting = true;
        return this;
    }

    /**
     * Keeps keys already past their expiry (Redis's rdbLoad on a replica: the master's DEL removes them,
     * and until then reads report them missing); returns this loader.
     */
    public KeyspaceLoader keepExpired() {
        keepExpired = true;
        return this;
    }

    /** Runs {@code hook} before each key is stored (the server's key-load-delay); returns this loader. */
    public KeyspaceLoader perKey(Runnable hook) {
        this.perKey = hook;
        return this;
    }

    /** Receives each key of the file skipped as already expired. */
    @FunctionalInterface
    public interface ExpiredKeys {
        void skipped(int db, byte[] key);
    }

    /**
     * Tells {@code sink} every key skipped as already expired (Redis's rdbLoad with RDBFLAGS_FEED_REPL: a master
     * restarting from its RDB sends its replicas their DELs); returns this loader.
     */
    public KeyspaceLoader onExpired(ExpiredKeys sink) {
        this.expired = sink;
        return this;
    }

    /** Tells {@code sink} each key skipped because its collection is empty (Redis logs each); returns this loader. */
    public KeyspaceLoader onEmptyKey(Consumer<byte[]> sink) {
        this.emptyKeys = sink;
        return this;
    }

    @Override
    public void emptyKey(int db, byte[] key) {
        emptySkipped++;
        if (emptyKeys != null) {
            emptyKeys.accept(key);
        }
    }

    @Override
    public void entry(int db, byte[] key, Object value, long expireAt, long idleSeconds, int freq) {
        if (perKey != null) {
            perKey.run();
        }
        if (!keepExpired && expireAt >= 0 && expireAt < now) {
            expiredSkipped++;
            if (expired != null) {
                expired.skipped(db, key);
            }
            return;
        }
        int h = KeyHash.hash(key, 0, key.length);
        Segment seg = keyspace.db(db).segment(h);
        seg.lock();
        try {
            if (refuseExisting && seg.get(key, 0, key.length, h, now) != null) {
                throw new RdbException("RDB has duplicated key '" + new String(key, StandardCharsets.UTF_8)
                        + "' in DB " + db);
            }
            Entry e = seg.putQuietly(key, h, value, expireAt);
            applyAccess(keyspace, e, idleSeconds, freq);
        } finally {
            seg.unlock();
        }
        loaded++;
    }

    /** Redis's {@code objectSetLRUOrLFU}: sets the stamp kind the keyspace uses, if the source gave it. */
    public static void applyAccess(Keyspace keyspace, Entry e, long idleSeconds, int freq) {
        if (keyspace.lfu() && freq >= 0) {
            e.access((int) ((System.currentTimeMillis() / 60_000 & 0xFFFF) << 8) | Math.min(255, freq));
        } else if (!keyspace.lfu() && idleSeconds >= 0) {
            keyspace.setIdle(e, idleSeconds);
        }
    }

    public long loaded() {
        return loaded;
    }

    public long expiredSkipped() {
        return expiredSkipped;
    }

    /** Keys skipped because their collection was empty. */
    public long emptySkipped() {
        return emptySkipped;
    }
}
