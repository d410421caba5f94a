package dev.spinel.grpc;

import dev.spinel.grpc.v1.Event;
import dev.spinel.grpc.v1.WatchResponse;
import dev.spinel.server.acl.User;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;

import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One Watch stream. Changes are queued by the writers (any thread) and delivered by one event loop,
 * which reads each key's state at delivery time: a present key is a PUT with its current value and
 * version, an absent one a DELETE, an expiry an EXPIRE. Consecutive changes of a key may thus be
 * reported with the same, latest, value. A watcher whose client does not keep up (more than
 * {@link #MAX_PENDING} undelivered changes) is ended with RESOURCE_EXHAUSTED rather than buffering
 * without bound.
 *
 * <p>The stream keeps its user's permissions under watch: after an ACL change ({@link #recheck}) a user that was
 * deleted, disabled, or may no longer read the target ends the stream with PERMISSION_DENIED, as Redis
 * disconnects a subscriber whose channels were revoked and the clients of a deleted user.
 *
 * <p>Thread-safety: {@link #offer} and {@link #recheck} from any thread; delivery and checks run on {@code loop},
 * one at a time.
 */
final class Watcher {
    static final int MAX_PENDING = 100_000;
    private static final int MAX_EVENTS_PER_MESSAGE = 256;

    final byte[] target;
    final boolean prefix;
    private final KvStore store;
    private final ServerCallStreamObserver<WatchResponse> out;
    private final Executor loop;
    /** The call's user; null: no ACL checks (outside an authenticated call). */
    private final User user;
    private final ConcurrentLinkedQueue<Change> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile boolean closed;

    private record Change(byte[] key, boolean expired) {
    }

    Watcher(byte[] target, boolean prefix, KvStore store, ServerCallStreamObserver<WatchResponse> out, Executor loop, User user) {
        this.target = target;
        this.prefix = prefix;
        this.store = store;
        this.out = out;
        this.loop = loop;
        this.user = user;
    }

    /** The ACL changed: the user's right to this stream is checked again on the stream's loop. */
    void recheck() {
        if (!closed && user != null) {
            loop.execute(this::checkAccess);
        }
    }

    private void checkAccess() {
        if (closed) {
            return;
        }
        // as the Watch was authorized: a key's changes are its GETs, a prefix's a SCAN and reads of all its keys
        String why = prefix ? store.revoked(user, target, KvService.SCAN, KvService.ZERO)
                : store.revoked(user, null, KvService.GET, target);
        if (why != null) {
            closed = true;
            store.hub().remove(this);
            out.onError(Failure.of(Status.PERMISSION_DENIED.withDescription(why)));
        }
    }

    boolean matches(byte[] key) {
        return prefix ? WatchHub.startsWith(key, target) : Arrays.equals(key, target);
    }

    void offer(byte[] key, boolean expired) {
        if (closed) {
            return;
        }
        pending.add(new Change(key, expired));
        size.incrementAndGet();
        schedule();
    }

    void schedule() {
        if (scheduled.compareAndSet(false, true)) {
            loop.execute(this::deliver);
        }
    }

    void close() {
        closed = true;
    }

    private void deliver() {
        scheduled.set(false);
        if (closed) {
            return;
        }
        if (size.get() > MAX_PENDING) {
            closed = true;
            store.hub().remove(this);
            out.onError(Failure.of(Status.RESOURCE_EXHAUSTED.withDescription("watcher too slow: over "
                    + MAX_PENDING + " undelivered changes")));
            return;
        }
        while (out.isReady() && !pending.isEmpty()) {
            WatchResponse.Builder msg = WatchResponse.newBuilder();
            Change c;
            while (msg.getEventsCount() < MAX_EVENTS_PER_MESSAGE && (c = pending.poll()) != null) {
                size.decrementAndGet();
                Event.Builder e = Event.newBuilder();
                if (c.expired) {
                    e.setType(Event.Type.EXPIRE).getKvBuilder().setKey(com.google.protobuf.ByteString.copyFrom(c.key));
                } else {
                    var kv = store.snapshot(c.key);
                    if (kv == null) {
                        e.setType(Event.Type.DELETE).getKvBuilder().setKey(com.google.protobuf.ByteString.copyFrom(c.key));
                    } else {
                        e.setType(Event.Type.PUT).setKv(kv);
                    }
                }
                msg.addEvents(e);
            }
            msg.setHeader(store.header());
            out.onNext(msg.build());
        }
        // Not ready: the stream's onReady handler calls schedule() again.
    }
}
