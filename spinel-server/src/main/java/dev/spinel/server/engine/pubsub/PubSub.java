package dev.spinel.server.engine.pubsub;

import dev.spinel.store.ByteKey;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.engine.ports.ClientConnection;
import dev.spinel.store.Glob;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The publish/subscribe registry: channel, pattern and shard-channel subscribers across all
 * connections. A message is delivered to each subscriber on the subscriber's own event loop (a task
 * per delivery), so the publisher never writes into another loop's buffers and messages from one
 * publisher arrive in publishing order (each loop runs its tasks in order).
 *
 * <p>Thread-safety: concurrent maps of concurrent sets; subscribe/unsubscribe/publish may run on any
 * loop at once. A session's own subscription sets ({@link Subscriptions}) are touched only on its loop.
 */
public final class PubSub<S extends Subscriber> {
    private static final byte[] MESSAGE = "message".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PMESSAGE = "pmessage".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SMESSAGE = "smessage".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SUNSUBSCRIBE = "sunsubscribe".getBytes(StandardCharsets.US_ASCII);

    private final Map<ByteKey, Set<S>> channels = new ConcurrentHashMap<>();
    private final Map<ByteKey, Set<S>> patterns = new ConcurrentHashMap<>();
    private final Map<ByteKey, Set<S>> shardChannels = new ConcurrentHashMap<>();
    private final OutputLimit<S> limit;

    public PubSub(OutputLimit<S> limit) {
        this.limit = limit;
    }

    /** Decides whether a subscriber's unsent output has grown past its limit (client-output-buffer-limit pubsub). */
    @FunctionalInterface
    public interface OutputLimit<S extends Subscriber> {
        boolean exceeded(S subscriber, long pendingBytes);
    }

    public enum Kind { CHANNEL, PATTERN, SHARD }

    private Map<ByteKey, Set<S>> map(Kind kind) {
        return switch (kind) {
            case CHANNEL -> channels;
            case PATTERN -> patterns;
            case SHARD -> shardChannels;
        };
    }

    /** Adds a subscription; returns false if the session already had it. */
    public boolean subscribe(Kind kind, ByteKey name, S s) {
        if (!s.subscriptions().set(kind).add(name)) {
            return false;
        }
        // Added inside compute (under the map's lock for the name), as in Watches.watch: with
        // computeIfAbsent(...).add(s) another client's last unsubscribe could drop the set in between,
        // and this subscription received nothing.
        map(kind).compute(name, (k, set) -> {
            Set<S> sessions = set != null ? set : ConcurrentHashMap.newKeySet();
            sessions.add(s);
            return sessions;
        });
        return true;
    }

    /** Removes a subscription; returns false if the session did not have it. */
    public boolean unsubscribe(Kind kind, ByteKey name, S s) {
        if (!s.subscriptions().set(kind).remove(name)) {
            return false;
        }
        map(kind).computeIfPresent(name, (k, set) -> {
            set.remove(s);
            return set.isEmpty() ? null : set;
        });
        return true;
    }

    /** Drops every subscription of a closing session. */
    public void unsubscribeAll(S s) {
        if (!s.hasSubscriptions()) {
            return;
        }
        for (Kind kind : Kind.values()) {
            for (ByteKey name : List.copyOf(s.subscriptions().set(kind))) {
                unsubscribe(kind, name, s);
            }
        }
    }

    /**
     * Ends every shard-channel subscription whose channel {@code dropped} accepts, as Redis 7.0's
     * removeChannelsInSlot when this node's shard stops serving the channel's slot: each subscriber gets a
     * {@code sunsubscribe} push with its remaining shard-channel count, written on its own loop (its subscription
     * set is that loop's), and stays connected.
     */
    public void dropShardChannels(Predicate<byte[]> dropped) {
        for (Map.Entry<ByteKey, Set<S>> e : shardChannels.entrySet()) {
            ByteKey name = e.getKey();
            if (!dropped.test(name.bytes())) {
                continue;
            }
            for (S s : e.getValue()) {
                s.deliver(() -> {
                    if (!unsubscribe(Kind.SHARD, name, s)) {
                        return; // the client unsubscribed meanwhile: it has had its reply
                    }
                    ReplyBuffer out = s.out();
                    s.beginPush();
                    out.push(3);
                    out.bulk(SUNSUBSCRIBE);
                    out.bulk(name.bytes());
                    out.integer(s.subscriptions().shardCount());
                    s.endPush();
                });
            }
        }
    }

    /** PUBLISH: delivers to channel and pattern subscribers; returns the number of receivers. */
    public long publish(byte[] channel, byte[] message) {
        long n = 0;
        Set<S> direct = channels.get(new ByteKey(channel));
        if (direct != null) {
            for (S s : direct) {
                deliver(s, MESSAGE, null, channel, message);
                n++;
            }
        }
        if (!patterns.isEmpty()) {
            for (Map.Entry<ByteKey, Set<S>> e : patterns.entrySet()) {
                byte[] p = e.getKey().bytes();
                if (Glob.matches(p, channel, false)) {
                    for (S s : e.getValue()) {
                        deliver(s, PMESSAGE, p, channel, message);
                        n++;
                    }
                }
            }
        }
        return n;
    }

    /** Calls {@code visit} for each subscriber a PUBLISH to {@code channel} would reach now (once per subscription). */
    public void forEachSubscriber(byte[] channel, Consumer<S> visit) {
        Set<S> direct = channels.get(new ByteKey(channel));
        if (direct != null) {
            direct.forEach(visit);
        }
        if (!patterns.isEmpty()) {
            for (Map.Entry<ByteKey, Set<S>> e : patterns.entrySet()) {
                if (Glob.matches(e.getKey().bytes(), channel, false)) {
                    e.getValue().forEach(visit);
                }
            }
        }
    }

    /** SPUBLISH: delivers to shard-channel subscribers. */
    public long publishShard(byte[] channel, byte[] message) {
        Set<S> subs = shardChannels.get(new ByteKey(channel));
        if (subs == null) {
            return 0;
        }
        for (S s : subs) {
            deliver(s, SMESSAGE, null, channel, message);
        }
        return subs.size();
    }

    private void deliver(S s, byte[] kind, byte[] pattern, byte[] channel, byte[] message) {
        ClientConnection c = s.connection();
        Runnable write = () -> {
            ReplyBuffer out = s.out();
            s.beginPush();
            out.push(pattern == null ? 3 : 4);
            out.bulk(kind);
            if (pattern != null) {
                out.bulk(pattern);
            }
            out.bulk(channel);
            out.bulk(message);
            s.endPush();
            if (limit.exceeded(s, c.pendingOutputBytes() + out.size())) {
                s.kill();
            }
        };
        if (s.executingOn() == Thread.currentThread()) {
            write.run(); // published by the subscriber's own command: Redis writes it before that command's reply
        } else {
            s.deliver(write);
        }
    }

    /** Active channels (with at least one subscriber) matching an optional pattern. */
    public List<byte[]> channels(Kind kind, byte[] pattern) {
        List<byte[]> out = new ArrayList<>();
        for (ByteKey k : map(kind).keySet()) {
            if (pattern == null || Glob.matches(pattern, k.bytes(), false)) {
                out.add(k.bytes());
            }
        }
        return out;
    }

    public long subscriberCount(Kind kind, byte[] name) {
        Set<S> s = map(kind).get(new ByteKey(name));
        return s == null ? 0 : s.size();
    }

    /** Number of distinct patterns subscribed by anyone (PUBSUB NUMPAT). */
    public long patternCount() {
        return patterns.size();
    }
}
