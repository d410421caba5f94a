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
import dev.spinel.server.acl.User;
import dev.spinel.server.engine.EmbeddedClient;
import dev.spinel.server.engine.EmbeddedClient.Access;
import dev.spinel.server.engine.EmbeddedClient.Done;
import dev.spinel.server.engine.EmbeddedClient.Locked;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.errors.RedisError;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The key-value operations of the gRPC service on the engine's keyspace (database 0), each one unit
 * of the engine's {@link EmbeddedClient}: atomic under its keys' stripe locks, refused as a RESP write
 * would be (OOM, MISCONF), and writing through Redis commands ({@code SET k v [PXAT t]}, {@code SET k v
 * KEEPTTL}, {@code DEL k}), so the append-only log, keyspace notifications, WATCH, CLIENT TRACKING,
 * MONITOR and the dirty counter see gRPC's writes exactly as they see RESP's. Values are plain Redis
 * strings. Each write returns its log position with its reply: the reply is sent once the log
 * acknowledges it ({@link KvService}). Errors are thrown as {@link StatusRuntimeException} with the
 * status the RPC returns.
 *
 * <p>Thread-safety: thread-safe; called from any event loop. Never blocks beyond a stripe lock.
 */
final class KvStore {
    static final int DB = 0;
    private static final byte[] SET = {'S', 'E', 'T'};
    private static final byte[] DEL = {'D', 'E', 'L'};
    private static final byte[] GET = {'G', 'E', 'T'};
    private static final byte[] PXAT = {'P', 'X', 'A', 'T'};
    private static final byte[] KEEPTTL = {'K', 'E', 'E', 'P', 'T', 'T', 'L'};

    private final Engine engine;
    private final EmbeddedClient client;
    private final KeyVersions versions;
    private final WatchHub hub;
    /**
     * Per thread: the key of the write command a unit of this service is running now (slot 0), else
     * null. The engine's change hook sees that command too; the unit stamps the key itself right after
     * it, so the hook need not refresh the version (a second unit, lookup and stamp per write).
     */
    private final FastThreadLocal<byte[][]> ownWrite = new FastThreadLocal<>() {
        @Override
        protected byte[][] initialValue() {
            return new byte[1][];
        }
    };

    /** Per event loop: its replies waiting for the log (see {@link LoggedReplies}); null until first used. */
    private final FastThreadLocal<LoggedReplies> loggedReplies = new FastThreadLocal<>();

    KvStore(Engine engine, KeyVersions versions, WatchHub hub) {
        this.engine = engine;
        this.client = engine.embeddedClient("grpc");
        this.versions = versions;
        this.hub = hub;
    }

    Engine engine() {
        return engine;
    }

    EmbeddedClient client() {
        return client;
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

    /**
     * Runs {@code reply} once log position {@code position} is acknowledged: at once when it is, else on
     * {@code loop} with the rest of the loop turn's waiting replies ({@link LoggedReplies}). Never blocks.
     */
    void afterLogged(long position, EventExecutor loop, Runnable reply) {
        if (client.acknowledged(position)) {
            reply.run();
        } else if (loop.inEventLoop()) {
            LoggedReplies r = loggedReplies.get();
            if (r == null) {
                r = new LoggedReplies(client, loop); // a thread is one loop for its whole life
                loggedReplies.set(r);
            }
            r.add(position, reply);
        } else {
            client.afterLogged(position, loop, reply);
        }
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

    /**
     * {@link #expireAt(long, long)} from now, reading the clock only for a TTL (most puts have none; the unit reads
     * it again anyway for its expiry checks).
     */
    static long expireAt(long ttlMs) {
        return ttlMs > 0 ? expireAt(ttlMs, System.currentTimeMillis()) : expireAt(ttlMs, 0);
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

    /** The string value, or FAILED_PRECONDITION with Redis's WRONGTYPE text. */
    static byte[] string(Object value) {
        if (value instanceof byte[] b) {
            return b;
        }
        throw Failure.of(Status.FAILED_PRECONDITION.withDescription(EmbeddedClient.wrongType()));
    }

    /**
     * A refusal or error reply of the engine as the RPC's status, with Redis's text as description:
     * OOM → RESOURCE_EXHAUSTED, MISCONF (persistence failing), NOREPLICAS (min-replicas-to-write) and MASTERDOWN (a
     * stale replica) → UNAVAILABLE, WRONGTYPE and READONLY (a write to a replica) → FAILED_PRECONDITION, anything
     * else → INTERNAL.
     */
    static StatusRuntimeException refused(RedisError e) {
        Status s = switch (e.code()) {
            case "OOM" -> Status.RESOURCE_EXHAUSTED;
            case "MISCONF", "NOREPLICAS", "MASTERDOWN" -> Status.UNAVAILABLE;
            case "WRONGTYPE", "READONLY" -> Status.FAILED_PRECONDITION;
            default -> Status.INTERNAL;
        };
        return Failure.of(s.withDescription(e.getMessage()));
    }

    /**
     * Checks the call's user may run, on every key, the Redis command the operation amounts to (GET for a
     * read, DEL for a delete, SET for a write that may grow), as ACL checks a RESP client's command (so
     * {@code %R~} patterns allow only reads, {@code %W~} only writes). Throws PERMISSION_DENIED with Redis's
     * NOPERM text.
     */
    void authorize(List<byte[]> keys, Access access) {
        User user = AuthInterceptor.USER.get();
        if (user == null || user.rules().unrestricted()) {
            return;
        }
        for (byte[] key : keys) {
            authorize(user, key, access);
        }
    }

    /** {@link #authorize(List, Access)} of one key. */
    void authorize(byte[] key, Access access) {
        User user = AuthInterceptor.USER.get();
        if (user != null && !user.rules().unrestricted()) {
            authorize(user, key, access);
        }
    }

    private void authorize(User user, byte[] key, Access access) {
        authorize(user, switch (access) {
            case READ -> new byte[][] {GET, key};
            case WRITE -> new byte[][] {DEL, key};
            case GROW -> new byte[][] {SET, key, key};
        });
    }

    /** The call's user, or null outside a call (no ACL checks then). */
    static User user() {
        return AuthInterceptor.USER.get();
    }

    /**
     * Checks the call's user may read every key starting with {@code prefix} (a prefix Watch, a Scan's fast path);
     * PERMISSION_DENIED otherwise, logged in ACL LOG.
     */
    void authorizePrefix(byte[] prefix) {
        User user = AuthInterceptor.USER.get();
        if (user == null) {
            return;
        }
        try {
            client.authorizePrefix(user, prefix);
        } catch (RedisError e) {
            throw Failure.of(Status.PERMISSION_DENIED.withDescription(e.getMessage()));
        }
    }

    /** Whether {@code user} (null: no checks) may read every key starting with {@code prefix}; logs nothing. */
    boolean mayReadAll(User user, byte[] prefix) {
        return user == null || client.mayReadPrefix(user, prefix);
    }

    /** Whether {@code user} (null: no checks) may read {@code key} as GET would; logs nothing. */
    boolean mayRead(User user, byte[] key) {
        return user == null || client.mayRead(user, key);
    }

    /**
     * Why an open stream of {@code user} may no longer read what it reads (the ACL changed since it started), or
     * null: the user was deleted, disabled or replaced (ACL DELUSER, SETUSER off, LOAD: Redis closes such a
     * user's connections), or its rules no longer allow the stream's command (GET of a watched key, SCAN) or
     * keys ({@code prefix}: every key under it, null: none beyond {@code argv}'s). Logs nothing, as Redis logs
     * nothing when it disconnects a subscriber whose channels were revoked.
     */
    String revoked(User user, byte[] prefix, byte[]... argv) {
        if (!client.userCurrent(user)) {
            return "NOPERM user '" + user.name() + "' was deleted, disabled or replaced by an ACL change";
        }
        String denial = client.denial(user, argv);
        if (denial == null && prefix != null && !client.mayReadPrefix(user, prefix)) {
            denial = "NOPERM this user has no permissions to access one of the keys used as arguments";
        }
        return denial;
    }

    /** Throws PERMISSION_DENIED for reading {@code key}, as GET would be denied (logged in ACL LOG). */
    void authorizeRead(User user, byte[] key) {
        if (user != null) {
            authorize(user, new byte[][] {GET, key});
        }
    }

    /** Checks the call's user may run {@code argv} (SCAN, a Watch's GET); see {@link #authorize(List, Access)}. */
    void authorize(byte[]... argv) {
        User user = AuthInterceptor.USER.get();
        if (user != null) {
            authorize(user, argv);
        }
    }

    private void authorize(User user, byte[][] argv) {
        try {
            client.authorize(user, argv);
        } catch (RedisError e) {
            throw Failure.of(Status.PERMISSION_DENIED.withDescription(e.getMessage()));
        }
    }

    /** Runs a unit of the engine's client for the call's user, its refusals and errors turned into statuses. */
    <T> Done<T> run(List<byte[]> keys, Access access, EmbeddedClient.Unit<T> unit) {
        authorize(keys, access);
        return runAuthorized(keys, access, unit);
    }

    /**
     * {@link #run} for a caller that has checked the user's permissions itself (a Txn, per key and operation). A
     * read throws {@link EmbeddedClient.Paused} while CLIENT PAUSE ALL holds reads, as a write does under any pause.
     */
    <T> Done<T> runAuthorized(List<byte[]> keys, Access access, EmbeddedClient.Unit<T> unit) {
        if (access == Access.READ) {
            client.holdReadsIfPaused();
        }
        try {
            return client.run(DB, keys, access, unit);
        } catch (RedisError e) {
            throw refused(e);
        }
    }

    KeyValue kv(byte[] key, Object value, long expireAt, long version, boolean withValue) {
        KeyValue.Builder b = KeyValue.newBuilder().setKey(ByteString.copyFrom(key)).setVersion(version);
        if (withValue) {
            b.setValue(ByteString.copyFrom(string(value)));
        }
        if (expireAt >= 0) {
            b.setExpireAtMs(expireAt);
        }
        return b.build();
    }

    // ---------------------------------------------------------------- writes as commands

    /** {@code SET key value}, with {@code PXAT expireAt} when set; returns the key's new version. */
    long set(Locked k, byte[] key, byte[] value, long expireAt) {
        if (expireAt >= 0) {
            call(k, key, SET, key, value, PXAT, Long.toString(expireAt).getBytes(StandardCharsets.US_ASCII));
        } else {
            call(k, key, SET, key, value);
        }
        return versions.written(key, k.identity(key));
    }

    /** {@code DEL key} of a key that exists. */
    void del(Locked k, byte[] key) {
        call(k, key, DEL, key);
        versions.deleted(key);
    }

    /** Runs a write command of {@code key}, which the caller stamps (or unstamps) right after it. */
    private void call(Locked k, byte[] key, byte[]... argv) {
        byte[][] own = ownWrite.get();
        own[0] = key;
        try {
            k.call(argv);
        } finally {
            own[0] = null;
        }
    }

    /**
     * Whether {@code key} is the key of the write command this thread's unit is running: the engine's
     * change hook then leaves the version to the unit, which stamps the key itself just after.
     */
    boolean isOwnWrite(byte[] key) {
        byte[] own = ownWrite.get()[0];
        return own != null && Arrays.equals(own, key);
    }

    // ---------------------------------------------------------------- operations

    Done<CreateResponse> create(CreateRequest r) {
        byte[] key = key(r.getKey());
        byte[] value = value(r.getValue());
        long expireAt = expireAt(r.getTtlMs());
        Done<Long> d = run(List.of(key), Access.GROW, k -> {
            if (k.value(key) != null) {
                throw Failure.of(Status.ALREADY_EXISTS.withDescription("key exists"));
            }
            return set(k, key, value, expireAt);
        });
        return new Done<>(CreateResponse.newBuilder().setHeader(header()).setVersion(d.value()).build(), d.logPosition());
    }

    Done<GetResponse> get(GetRequest r) {
        byte[] key = key(r.getKey());
        KeyValue kv = run(List.of(key), Access.READ, k -> readLocked(k, key, true)).value();
        if (kv == null) {
            throw notFound(key);
        }
        return new Done<>(GetResponse.newBuilder().setHeader(header()).setKv(kv).build(), 0);
    }

    /** The key's state now, or null when absent; inside a unit holding the key. */
    KeyValue readLocked(Locked k, byte[] key, boolean withValue) {
        Object value = k.value(key);
        if (value == null) {
            versions.versionOf(key, null);
            engine.stats().keyspaceMisses.increment();
            return null;
        }
        engine.stats().keyspaceHits.increment();
        return kv(key, value, k.expireAt(key), versions.versionOf(key, k.identity(key)), withValue);
    }

    /**
     * After a command wrote a key gRPC holds a version for: a new version if it still exists (the
     * change may have been in place), its stamp dropped if it was deleted (so keys deleted through RESP
     * do not keep a stamp forever).
     */
    void refreshVersion(byte[] key) {
        client.run(DB, List.of(key), Access.READ, k -> {
            if (k.value(key) == null) {
                versions.versionOf(key, null);
            } else {
                versions.bump(key);
            }
            return null;
        });
    }

    /** For Watch: the key's value and version, or null when absent (a non-string key: no value). */
    KeyValue snapshot(byte[] key) {
        return client.run(DB, List.of(key), Access.READ, k -> {
            Object value = k.value(key);
            if (value == null) {
                return null;
            }
            return kv(key, value, k.expireAt(key), versions.versionOf(key, k.identity(key)), value instanceof byte[]);
        }).value();
    }

    Done<UpdateResponse> update(UpdateRequest r) {
        byte[] key = key(r.getKey());
        byte[] value = value(r.getValue());
        if (r.hasExpectedVersion()) {
            authorize(key, Access.READ); // comparing its version reads the key, as a Txn's compare does
        }
        Done<Long> d = run(List.of(key), Access.GROW, k -> {
            Object current = k.value(key);
            if (current == null) {
                throw notFound(key);
            }
            if (r.hasExpectedVersion()) {
                long v = versions.versionOf(key, k.identity(key));
                if (v != r.getExpectedVersion()) {
                    throw versionMismatch(r.getExpectedVersion(), v);
                }
            }
            call(k, key, SET, key, value, KEEPTTL); // the TTL is kept, not set
            return versions.written(key, k.identity(key));
        });
        return new Done<>(UpdateResponse.newBuilder().setHeader(header()).setVersion(d.value()).build(), d.logPosition());
    }

    Done<DeleteResponse> delete(DeleteRequest r) {
        byte[] key = key(r.getKey());
        if (r.hasExpectedVersion()) {
            authorize(key, Access.READ);
        }
        Done<Long> d = run(List.of(key), Access.WRITE,
                k -> deleteLocked(k, key, r.hasExpectedVersion(), r.getExpectedVersion(), true));
        return new Done<>(DeleteResponse.newBuilder().setHeader(header()).setVersion(d.value()).build(), d.logPosition());
    }

    /** Deletes inside a unit holding the key; returns the version the key had (0 if absent and !mustExist). */
    long deleteLocked(Locked k, byte[] key, boolean checkVersion, long expected, boolean mustExist) {
        Object value = k.value(key);
        if (value == null) {
            versions.versionOf(key, null);
            if (mustExist) {
                throw notFound(key);
            }
            return 0;
        }
        long current = versions.versionOf(key, k.identity(key));
        if (checkVersion && current != expected) {
            throw versionMismatch(expected, current);
        }
        del(k, key);
        return current;
    }

    Done<PutResponse> put(PutRequest r) {
        byte[] key = key(r.getKey());
        byte[] value = value(r.getValue());
        long expireAt = expireAt(r.getTtlMs());
        Done<PutResponse.Builder> d = run(List.of(key), Access.GROW, k -> {
            PutResponse.Builder b = PutResponse.newBuilder();
            putLocked(k, key, value, expireAt, b);
            return b;
        });
        return new Done<>(d.value().setHeader(header()).build(), d.logPosition());
    }

    void putLocked(Locked k, byte[] key, byte[] value, long expireAt, PutResponse.Builder b) {
        boolean created = k.value(key) == null;
        b.setCreated(created).setVersion(set(k, key, value, expireAt));
    }
}
