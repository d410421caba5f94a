package dev.spinel.client.internal;

import dev.spinel.client.AutoClaimResult;
import dev.spinel.client.PendingMessage;
import dev.spinel.client.PendingSummary;
import dev.spinel.client.StreamEntry;
import dev.spinel.protocol.RespValue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Argument encoding and reply converters of the stream commands. Stateless and thread-safe. */
public final class StreamReplies {
    private StreamReplies() {
    }

    /** {@code [COUNT n] [BLOCK ms] [NOACK] STREAMS key ... id ...}: COUNT when {@code count > 0}, BLOCK when {@code blockMillis >= 0}. */
    public static <K, V> Object[] readArgs(Dispatcher<K, V> d, long count, long blockMillis, boolean noAck, Map<K, String> streams) {
        List<Object> out = new ArrayList<>(6 + streams.size() * 2);
        if (count > 0) {
            out.add("COUNT");
            out.add(count);
        }
        if (blockMillis >= 0) {
            out.add("BLOCK");
            out.add(blockMillis);
        }
        if (noAck) {
            out.add("NOACK");
        }
        out.add("STREAMS");
        for (K key : streams.keySet()) {
            out.add(d.k(key));
        }
        out.addAll(streams.values());
        return out.toArray();
    }

    /** Field-value pairs of a map, for XADD. */
    public static <K, V> Object[] fields(Dispatcher<K, V> d, Map<K, V> fields) {
        return d.kv(fields);
    }

    /** {@code [id, [field, value, ...]]} entries; a deleted pending entry has no fields (null). */
    public static <K, V> Reply<List<StreamEntry<K, V>>> entries(Replies<K, V> r) {
        return v -> Replies.list(v, e -> entry(r, e));
    }

    private static <K, V> StreamEntry<K, V> entry(Replies<K, V> r, RespValue e) {
        List<RespValue> parts = Replies.items(e);
        RespValue fields = parts.get(1);
        return new StreamEntry<>(Replies.text(parts.get(0)), fields instanceof RespValue.Null ? null : r.map.convert(fields));
    }

    /**
     * XREAD / XREADGROUP: per stream key its entries, in the server's order; RESP2 sends
     * {@code [[key, entries], ...]}, RESP3 a map; nothing new (or a BLOCK that timed out) is an empty map.
     */
    public static <K, V> Reply<Map<K, List<StreamEntry<K, V>>>> streams(Replies<K, V> r) {
        Reply<List<StreamEntry<K, V>>> entries = entries(r);
        return v -> {
            if (v instanceof RespValue.Null) {
                return Collections.emptyMap();
            }
            Map<K, List<StreamEntry<K, V>>> out = new LinkedHashMap<>();
            List<RespValue> items = Replies.items(v);
            if (v instanceof RespValue.MapValue) {
                for (int i = 0; i + 1 < items.size(); i += 2) {
                    out.put(r.key.convert(items.get(i)), entries.convert(items.get(i + 1)));
                }
            } else {
                for (RespValue pair : items) {
                    List<RespValue> p = Replies.items(pair);
                    out.put(r.key.convert(p.get(0)), entries.convert(p.get(1)));
                }
            }
            return out;
        };
    }

    /** XPENDING key group: count, lowest, highest, [[consumer, count], ...]. */
    public static <K, V> Reply<PendingSummary<K>> summary(Replies<K, V> r) {
        return v -> {
            List<RespValue> parts = Replies.items(v);
            Map<K, Long> consumers = new LinkedHashMap<>();
            if (!(parts.get(3) instanceof RespValue.Null)) {
                for (RespValue c : Replies.items(parts.get(3))) {
                    List<RespValue> p = Replies.items(c);
                    consumers.put(r.key.convert(p.get(0)), Long.parseLong(Replies.text(p.get(1))));
                }
            }
            return new PendingSummary<>(((RespValue.Integer) parts.get(0)).value(), idOrNull(parts.get(1)), idOrNull(parts.get(2)), consumers);
        };
    }

    /** XPENDING key group start end count: [[id, consumer, idle, deliveries], ...]. */
    public static <K, V> Reply<List<PendingMessage<K>>> pending(Replies<K, V> r) {
        return v -> Replies.list(v, e -> {
            List<RespValue> p = Replies.items(e);
            return new PendingMessage<>(Replies.text(p.get(0)), r.key.convert(p.get(1)),
                    ((RespValue.Integer) p.get(2)).value(), ((RespValue.Integer) p.get(3)).value());
        });
    }

    /** XAUTOCLAIM: [next id, entries, deleted ids]. */
    public static <K, V> Reply<AutoClaimResult<K, V>> autoclaim(Replies<K, V> r) {
        Reply<List<StreamEntry<K, V>>> entries = entries(r);
        return v -> {
            List<RespValue> p = Replies.items(v);
            return new AutoClaimResult<>(Replies.text(p.get(0)), entries.convert(p.get(1)), Replies.list(p.get(2), Replies::text));
        };
    }

    /** An entry ID, or null (XADD NOMKSTREAM on a missing key). */
    public static final Reply<String> ID_OR_NULL = StreamReplies::idOrNull;

    private static String idOrNull(RespValue v) {
        return v instanceof RespValue.Null ? null : Replies.text(v);
    }
}
