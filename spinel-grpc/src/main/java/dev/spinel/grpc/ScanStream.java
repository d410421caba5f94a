package dev.spinel.grpc;

import com.google.protobuf.ByteString;
import dev.spinel.grpc.v1.KeyValue;
import dev.spinel.grpc.v1.ScanRequest;
import dev.spinel.grpc.v1.ScanResponse;
import dev.spinel.server.acl.User;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * One Scan call: walks the database with the SCAN cursor (a step visits whole hash buckets under
 * their stripe lock), filters by prefix or range, and sends one message per step while the client is
 * ready to receive (flow control: a slow client never makes the server buffer the keyspace). The page
 * token is the cursor of the step in progress plus how many of its matches were already sent.
 *
 * <p>ACL: a Scan is Redis's SCAN (the call needs its permission) plus a GET of each key it returns (a
 * {@link KeyValue} carries the value, version and expiry), so each key is checked as GET would check it. The
 * first key the user may not read ends the stream with PERMISSION_DENIED and Redis's NOPERM text (logged in ACL
 * LOG), before anything of its step is sent: the stream never reveals such a key, nor filters it silently (Redis
 * filters nothing either: a GET of it is refused). Scan a prefix or range within the user's read patterns. When
 * the user's patterns cover the whole prefix (e.g. {@code ~prefix*}), no key is checked one by one.
 *
 * <p>The permissions are read again at each step: once the user was deleted, disabled or replaced (ACL DELUSER,
 * SETUSER off, LOAD) or may no longer SCAN, the stream ends with PERMISSION_DENIED; narrowed key patterns apply
 * to the keys of the next step (the first one refused ends it as above).
 *
 * <p>CLIENT PAUSE ALL holds each step as it holds each SCAN: the stream goes on once the pause ends.
 *
 * <p>Thread-safety: confined to the call's transport thread (the server uses a direct executor).
 */
final class ScanStream {
    private static final int KEYS_PER_STEP = 64;

    private final KvStore store;
    private final ScanRequest r;
    private final ServerCallStreamObserver<ScanResponse> out;
    private final byte[] prefix;
    private final byte[] start;
    private final byte[] end;
    private long cursor;
    private int skip;
    private long remaining;
    private boolean done;
    private boolean pumping;
    private boolean held;
    /** The call's user; null: no ACL checks (outside an authenticated call). */
    private final User user;
    /** {@link #user} when its keys need a check one by one, else null (no ACL, or a covered prefix); set per step. */
    private User checked;
    /** Runs its argument once CLIENT PAUSE ends (or the call is over), on the call's loop and context. */
    private final Consumer<Runnable> whenUnpaused;

    ScanStream(KvStore store, ScanRequest r, ServerCallStreamObserver<ScanResponse> out, Consumer<Runnable> whenUnpaused) {
        this.store = store;
        this.r = r;
        this.out = out;
        this.whenUnpaused = whenUnpaused;
        this.prefix = r.getPrefix().toByteArray();
        this.start = r.getRangeStart().toByteArray();
        this.end = r.getRangeEnd().toByteArray();
        this.user = KvStore.user();
        if (prefix.length > 0 && (start.length > 0 || end.length > 0)) {
            throw Failure.of(Status.INVALID_ARGUMENT.withDescription("give a prefix or a range, not both"));
        }
        if (r.getLimit() < 0) {
            throw Failure.of(Status.INVALID_ARGUMENT.withDescription("limit must not be negative"));
        }
        this.remaining = r.getLimit() == 0 ? Long.MAX_VALUE : r.getLimit();
        if (!r.getPageToken().isEmpty()) {
            if (r.getPageToken().size() != 12) {
                throw Failure.of(Status.INVALID_ARGUMENT.withDescription("malformed page_token"));
            }
            ByteBuffer b = r.getPageToken().asReadOnlyByteBuffer();
            cursor = b.getLong();
            skip = b.getInt();
            if (cursor < 0 || skip < 0) {
                throw Failure.of(Status.INVALID_ARGUMENT.withDescription("malformed page_token"));
            }
        }
    }

    void start() {
        out.setOnReadyHandler(this::pump);
        pump();
    }

    private void pump() {
        if (pumping || done) {
            return;
        }
        pumping = true;
        try {
            while (!done && out.isReady()) {
                if (out.isCancelled()) {
                    done = true;
                    return;
                }
                if (store.client().readsHeld()) {
                    if (!held) { // CLIENT PAUSE ALL: the next step waits for its end
                        held = true;
                        whenUnpaused.accept(() -> {
                            held = false;
                            pump();
                        });
                    }
                    return;
                }
                step();
            }
        } finally {
            pumping = false;
        }
    }

    private void step() {
        if (user != null) {
            String why = store.revoked(user, null, KvService.SCAN, KvService.ZERO);
            if (why != null) {
                done = true;
                out.onError(Failure.of(Status.PERMISSION_DENIED.withDescription(why)));
                return;
            }
            checked = store.mayReadAll(user, commonPrefix()) ? null : user;
        }
        long now = System.currentTimeMillis();
        List<KeyValue> found = new ArrayList<>();
        byte[][] denied = new byte[1][];
        long stepCursor = cursor;
        long next = store.client().scan(KvStore.DB, cursor, KEYS_PER_STEP, (key, value, identity, expireAt) -> {
            if (matches(key) && (expireAt < 0 || expireAt > now)) {
                if (checked != null && !store.mayRead(checked, key)) {
                    if (denied[0] == null) {
                        denied[0] = key;
                    }
                } else {
                    found.add(kv(key, value, identity, expireAt));
                }
            }
        });
        if (denied[0] != null) {
            done = true;
            try {
                store.authorizeRead(checked, denied[0]); // throws, and logs the denial as GET's
                throw new IllegalStateException("ACL allowed a key it had refused");
            } catch (StatusRuntimeException e) {
                out.onError(e);
            }
            return;
        }
        ScanResponse.Builder msg = ScanResponse.newBuilder();
        int from = Math.min(skip, found.size());
        int n = (int) Math.min(found.size() - from, remaining);
        msg.addAllKvs(found.subList(from, from + n));
        remaining -= n;
        if (from + n < found.size()) {
            // The limit ends the page inside this step: resume here, past what was sent.
            msg.setNextPageToken(token(stepCursor, from + n));
            done = true;
        } else {
            skip = 0;
            cursor = next;
            if (next == 0) {
                done = true;
            } else if (remaining == 0) {
                msg.setNextPageToken(token(next, 0));
                done = true;
            }
        }
        if (msg.getKvsCount() > 0 || done) {
            out.onNext(msg.setHeader(store.header()).build());
        }
        if (done) {
            out.onCompleted();
        }
    }

    /** Called under the entry's stripe lock. */
    private KeyValue kv(byte[] key, Object value, Object identity, long expireAt) {
        long version = store.versions().versionOf(key, identity);
        KeyValue.Builder b = KeyValue.newBuilder().setKey(ByteString.copyFrom(key)).setVersion(version);
        if (!r.getKeysOnly() && value instanceof byte[] v) {
            b.setValue(ByteString.copyFrom(v));
        }
        if (expireAt >= 0) {
            b.setExpireAtMs(expireAt);
        }
        return b.build();
    }

    /** What every key of the scan starts with: its prefix, or the common start of its range's two ends. */
    private byte[] commonPrefix() {
        if (prefix.length > 0 || end.length == 0) {
            return prefix; // an open-ended range has no common start
        }
        int n = Arrays.mismatch(start, end);
        return n < 0 ? start : Arrays.copyOf(start, Math.min(n, start.length));
    }

    private boolean matches(byte[] key) {
        if (prefix.length > 0) {
            return WatchHub.startsWith(key, prefix);
        }
        if (start.length > 0 && Arrays.compareUnsigned(key, start) < 0) {
            return false;
        }
        return end.length == 0 || Arrays.compareUnsigned(key, end) < 0;
    }

    private static ByteString token(long cursor, int skip) {
        return ByteString.copyFrom(ByteBuffer.allocate(12).putLong(cursor).putInt(skip).array());
    }
}
