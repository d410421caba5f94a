package dev.spinel.server.engine.pubsub;

import dev.spinel.store.ByteKey;
import java.util.HashSet;
import java.util.Set;

/**
 * One session's subscriptions (channels, patterns, shard channels). Created on first SUBSCRIBE.
 * Not thread-safe: touched only on the session's event loop.
 */
public final class Subscriptions {
    private final Set<ByteKey> channels = new HashSet<>();
    private final Set<ByteKey> patterns = new HashSet<>();
    private final Set<ByteKey> shardChannels = new HashSet<>();

    public Set<ByteKey> set(PubSub.Kind kind) {
        return switch (kind) {
            case CHANNEL -> channels;
            case PATTERN -> patterns;
            case SHARD -> shardChannels;
        };
    }

    /** Channels plus patterns: the count Redis reports in (un)subscribe replies. */
    public int count() {
        return channels.size() + patterns.size();
    }

    public int shardCount() {
        return shardChannels.size();
    }

    public boolean any() {
        return !channels.isEmpty() || !patterns.isEmpty() || !shardChannels.isEmpty();
    }
}
