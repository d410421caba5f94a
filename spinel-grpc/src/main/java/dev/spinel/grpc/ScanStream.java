package dev.spinel.grpc;

import com.google.protobuf.ByteString;
import dev.spinel.grpc.v1.KeyValue;
import dev.spinel.grpc.v1.ScanRequest;
import dev.spinel.grpc.v1.ScanResponse;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One Scan call: walks the database with the SCAN cursor (a step visits whole hash buckets under
 * their stripe lock), filters by prefix or range, and sends one message per step while the client is
 * ready to receive (flow control: a slow client never makes the server buffer the keyspace). The page
 * token is the cursor of the step in progress plus how many of its matches were already sent.
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

    ScanStream(KvStore store, ScanRequest r, ServerCallStreamObserver<ScanResponse> out) {
        this.store = store;
        this.r = r;
        this.out = out;
        this.prefix = r.getPrefix().toByteArray();
        this.start = r.getRangeStart().toByteArray();
        this.end = r.getRangeEnd().toByteArray();
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
                step();
            }
        } finally {
            pumping = false;
        }
    }

    private void step() {
        long now = System.currentTimeMillis();
        List<KeyValue> found = new ArrayList<>();
        long stepCursor = cursor;
        long next = store.client().scan(KvStore.DB, cursor, KEYS_PER_STEP, (key, value, expireAt) -> {
            if (matches(key) && (expireAt < 0 || expireAt > now)) {
                found.add(kv(key, value, expireAt));
            }
        });
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
    private KeyValue kv(byte[] key, Object value, long expireAt) {
        long version = store.versions().versionOf(key, value);
        KeyValue.Builder b = KeyValue.newBuilder().setKey(ByteString.copyFrom(key)).setVersion(version);
        if (!r.getKeysOnly() && value instanceof byte[] v) {
            b.setValue(ByteString.copyFrom(v));
        }
        if (expireAt >= 0) {
            b.setExpireAtMs(expireAt);
        }
        return b.build();
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
