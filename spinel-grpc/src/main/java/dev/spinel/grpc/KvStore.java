package dev.spinel.grpc;

import com.google.protobuf.ByteString;
import dev.spinel.grpc.v1.CreateRequest;
import dev.spinel.grpc.v1.CreateResponse;
import dev.spinel.grpc.v1.DeleteRequest;
import dev.spinel.grpc.v1.DeleteResponse;
import dev.spinel.grpc.v1.GetRequest;
import dev.spinel.grpc.v1.GetResponse;
import dev.spinel.grpc.v1.Header;
import dev.spinel.grpc.v1.KeyValue;
import dev.spinel.grpc.v1.PutRequest;
import dev.spinel.grpc.v1.PutResponse;
import dev.spinel.grpc.v1.UpdateRequest;
import dev.spinel.grpc.v1.UpdateResponse;
import dev.spinel.server.commands.Keys;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.RedisError;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Segment;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * The key-value operations of the gRPC service on the engine's keyspace (database 0), each atomic
 * under its key's stripe lock. Values are stored as plain Redis strings ({@code byte[]}), so RESP
 * GET reads them. After each write the engine is told (dirty counter, WATCH, CLIENT TRACKING),
 * keyspace notifications are published and Watch streams fed, as a RESP command's write would.
 * Errors are thrown as {@link StatusRuntimeException} with the status the RPC returns.
 *
 * <p>Thread-safety: thread-safe; called from any event loop. Never blocks beyond a stripe lock.
 */
final class KvStore {
    static final int DB = 0;

    private final Engine engine;
    private final Database db;
    private final KeyVersions versions;
    private final WatchHub hub;

    KvStore(Engine engine, KeyVersions versions, WatchHub hub) {
        this.engine = engine;
        this.db = engine.keyspace().db(DB);
        this.versions = versions;
        this.hub = hub;
    }

    Engine engine() {
        return engine;
    }

    Database db() {
        return db;
    }

    KeyVersions versions() {
        return versions;
    }

    WatchHub hub() {
        return hub;
    }

    Header header() {
        return Header.newBuilder().setRevision(versions.revision()).build();
    }

    // ---------------------------------------------------------------- validation

    static byte[] key(ByteString key) {
        if (key.isEmpty()) {
            throw Failure.of(Status.INVALID_ARGUMENT.withDescription("key must not be empty"));
        }
        return key.toByteArray();
    }

    byte[] value(ByteString value) {
        long max = engine.config().protoMaxBulkLen.value();
        if (value.size() > max) {
            throw Failure.of(Status.INVALID_ARGUMENT.withDescription("value of " + value.size()
                    + " bytes is over the limit of " + max + " (proto-max-bulk-len)"));
        }
        return value.toByteArray();
    }

    static long expireAt(long ttlMs, long now) {
        if (ttlMs < 0) {
            throw Failure.of(Status.INVALID_ARGUMENT.withDescription("ttl_ms must not be negative"));
        }
        if (ttlMs == 0) {
            return -1;
        }
        if (ttlMs > Long.MAX_VALUE - now) {
            throw Failure.of(Status.INVALID_ARGUMENT.withDescription("ttl_ms too large"));
        }
        return now + ttlMs;
    }

    static StatusRuntimeException notFound(byte[] key) {
        return Failure.of(Status.NOT_FOUND.withDescription("key not found"));
    }

    static StatusRuntimeException versionMismatch(long expected, long actual) {
        return Failure.of(Status.FAILED_PRECONDITION.withDescription("version mismatch: expected " + expected
                + ", key is at " + actual));
    }

    static byte[] string(Entry e) {
        try {
            return Keys.string(e);
        } catch (RedisError wrongType) {
            throw Failure.of(Status.FAILED_PRECONDITION.withDescription(wrongType.getMessage()));
        }
    }

    KeyValue kv(Entry e, long version, boolean withValue) {
        KeyValue.Builder b = KeyValue.newBuilder().setKey(ByteString.copyFrom(e.key())).setVersion(version);
        if (withValue) {
            b.setValue(ByteString.copyFrom(string(e)));
        }
        if (e.expireAt() >= 0) {
            b.setExpireAtMs(e.expireAt());
        }
        return b.build();
    }

    // ---------------------------------------------------------------- operations

    CreateResponse create(CreateRequest r) {
        byte[] key = key(r.getKey());
        byte[] value = value(r.getValue());
        long now = System.currentTimeMillis();
        long expireAt = expireAt(r.getTtlMs(), now);
        int h = KeyHash.hash(key);
        Segment seg = db.segment(h);
        long v;
        seg.lock();
        try {
            if (seg.get(key, 0, key.length, h, now) != null) {
                throw Failure.of(Status.ALREADY_EXISTS.withDescription("key exists"));
            }
            seg.insert(key, h, value, expireAt);
            v = versions.written(key, value);
            touched(key);
        } finally {
            seg.unlock();
        }
        written(key, expireAt >= 0);
        return CreateResponse.newBuilder().setHeader(header()).setVersion(v).build();
    }

    GetResponse get(GetRequest r) {
        byte[] key = key(r.getKey());
        GetResponse.Builder b = GetResponse.newBuilder();
        KeyValue kv = read(key, true);
        if (kv == null) {
            throw notFound(key);
        }
        return b.setHeader(header()).setKv(kv).build();
    }

    /** The key's state now, or null when absent. */
    KeyValue read(byte[] key, boolean withValue) {
        int h = KeyHash.hash(key);
        Segment seg = db.segment(h);
        seg.lock();
        try {
            return readLocked(key, h, seg, withValue, System.currentTimeMillis());
        } finally {
            seg.unlock();
        }
    }

    KeyValue readLocked(byte[] key, int h, Segment seg, boolean withValue, long now) {
        Entry e = seg.get(key, 0, key.length, h, now);
        if (e == null) {
            versions.versionOf(key, null);
            engine.stats().keyspaceMisses.increment();
            return null;
        }
        engine.stats().keyspaceHits.increment();
        return kv(e, versions.versionOf(key, e.value()), withValue);
    }

    /**
     * After a RESP command wrote a key gRPC holds a version for: a new version if it still exists (the
     * change may have been in place), its stamp dropped if it was deleted (so keys deleted through RESP
     * do not keep a stamp forever).
     */
    void refreshVersion(byte[] key) {
        int h = KeyHash.hash(key);
        Segment seg = db.segment(h);
        seg.lock();
        try {
            Entry e = seg.get(key, 0, key.length, h, System.currentTimeMillis());
            if (e == null) {
                versions.versionOf(key, null);
            } else {
                versions.bump(key);
            }
        } finally {
            seg.unlock();
        }
    }

    /** For Watch: the key's value and version, or null when absent (a non-string key: no value). */
    KeyValue snapshot(byte[] key) {
        int h = KeyHash.hash(key);
        Segment seg = db.segment(h);
        seg.lock();
        try {
            Entry e = seg.get(key, 0, key.length, h, System.currentTimeMillis());
            if (e == null) {
                return null;
            }
            return kv(e, versions.versionOf(key, e.value()), e.value() instanceof byte[]);
        } finally {
            seg.unlock();
        }
    }

    UpdateResponse update(UpdateRequest r) {
        byte[] key = key(r.getKey());
        byte[] value = value(r.getValue());
        int h = KeyHash.hash(key);
        Segment seg = db.segment(h);
        long v;
        seg.lock();
        try {
            Entry e = seg.get(key, 0, key.length, h, System.currentTimeMillis());
            if (e == null) {
                throw notFound(key);
            }
            if (r.hasExpectedVersion()) {
                long current = versions.versionOf(key, e.value());
                if (current != r.getExpectedVersion()) {
                    throw versionMismatch(r.getExpectedVersion(), current);
                }
            }
            seg.replaceValue(e, value);
            v = versions.written(key, value);
            touched(key);
        } finally {
            seg.unlock();
        }
        written(key, false); // the TTL is kept, not set
        return UpdateResponse.newBuilder().setHeader(header()).setVersion(v).build();
    }

    DeleteResponse delete(DeleteRequest r) {
        byte[] key = key(r.getKey());
        long v = deleteKey(key, r.hasExpectedVersion(), r.getExpectedVersion(), true);
        return DeleteResponse.newBuilder().setHeader(header()).setVersion(v).build();
    }

    /** Deletes; returns the version the key had (0 if absent and !mustExist). */
    long deleteKey(byte[] key, boolean checkVersion, long expected, boolean mustExist) {
        int h = KeyHash.hash(key);
        Segment seg = db.segment(h);
        long v;
        seg.lock();
        try {
            v = deleteLocked(key, h, seg, checkVersion, expected, mustExist);
        } finally {
            seg.unlock();
        }
        if (v != 0) {
            deleted(key);
        }
        return v;
    }

    long deleteLocked(byte[] key, int h, Segment seg, boolean checkVersion, long expected, boolean mustExist) {
        Entry e = seg.get(key, 0, key.length, h, System.currentTimeMillis());
        if (e == null) {
            versions.versionOf(key, null);
            if (mustExist) {
                throw notFound(key);
            }
            return 0;
        }
        long current = versions.versionOf(key, e.value());
        if (checkVersion && current != expected) {
            throw versionMismatch(expected, current);
        }
        seg.removeEntry(e);
        versions.deleted(key);
        touched(key);
        return current;
    }

    PutResponse put(PutRequest r) {
        byte[] key = key(r.getKey());
        byte[] value = value(r.getValue());
        long now = System.currentTimeMillis();
        long expireAt = expireAt(r.getTtlMs(), now);
        int h = KeyHash.hash(key);
        Segment seg = db.segment(h);
        PutResponse.Builder b = PutResponse.newBuilder();
        seg.lock();
        try {
            putLocked(key, h, seg, value, expireAt, now, b);
        } finally {
            seg.unlock();
        }
        written(key, expireAt >= 0);
        return b.setHeader(header()).build();
    }

    void putLocked(byte[] key, int h, Segment seg, byte[] value, long expireAt, long now, PutResponse.Builder b) {
        Entry e = seg.get(key, 0, key.length, h, now);
        if (e == null) {
            seg.insert(key, h, value, expireAt);
        } else {
            seg.replaceValue(e, value);
            seg.setExpire(e, expireAt);
        }
        b.setCreated(e == null).setVersion(versions.written(key, value));
        touched(key);
    }

    // ---------------------------------------------------------------- after a write

    /**
     * Invalidates WATCHes and client caches of {@code key}; called with its stripe lock held, so an
     * EXEC (which holds every stripe while it checks its watches) sees the write or runs before it.
     */
    private void touched(byte[] key) {
        engine.keyChangedExternally(DB, key);
    }

    /** Publishes the write of {@code key} (notifications, Watch streams); call after unlocking. */
    void written(byte[] key, boolean withTtl) {
        Notifications n = engine.notifications();
        n.notify(Notifications.STRING, "set", key, DB);
        if (withTtl) {
            n.notify(Notifications.GENERIC, "expire", key, DB);
        }
        hub.changed(key, false);
    }

    void deleted(byte[] key) {
        engine.notifications().notify(Notifications.GENERIC, "del", key, DB);
        hub.changed(key, false);
    }
}
