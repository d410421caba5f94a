package dev.spinel.client.internal;

import dev.spinel.client.KeyValue;
import dev.spinel.client.StreamEntry;
import dev.spinel.protocol.RespValue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Reply converters of the stream commands. Stateless and thread-safe. */
public final class StreamReplies {
    private StreamReplies() {
    }

    /** XRANGE/XREVRANGE: entries, each {@code [id, [field, value, ...]]}; a null reply (COUNT 0) is empty. */
    public static <K, V> Reply<List<StreamEntry<K, V>>> entries(Replies<K, V> r) {
        return v -> Replies.list(v, e -> entry(r, e));
    }

    /**
     * XREAD/XREADGROUP of one stream: its entries, empty when nothing came (null reply). The reply is
     * {@code [[key, entries]]} in RESP2 and {@code {key: entries}} in RESP3.
     */
    public static <K, V> Reply<List<StreamEntry<K, V>>> read(Replies<K, V> r) {
        return v -> {
            if (v instanceof RespValue.Null) {
                return Collections.emptyList();
            }
            List<RespValue> items = Replies.items(v);
            if (items.isEmpty()) {
                return Collections.emptyList();
            }
            RespValue entries = v instanceof RespValue.MapValue ? items.get(1) : Replies.items(items.getFirst()).get(1);
            return Replies.list(entries, e -> entry(r, e));
        };
    }

    private static <K, V> StreamEntry<K, V> entry(Replies<K, V> r, RespValue e) {
        List<RespValue> parts = Replies.items(e);
        String id = Replies.text(parts.get(0));
        if (parts.get(1) instanceof RespValue.Null) {
            return new StreamEntry<>(id, null);
        }
        List<RespValue> fv = Replies.items(parts.get(1));
        List<KeyValue<K, V>> fields = new ArrayList<>(fv.size() / 2);
        for (int i = 0; i + 1 < fv.size(); i += 2) {
            fields.add(new KeyValue<>(r.key.convert(fv.get(i)), r.value.convert(fv.get(i + 1))));
        }
        return new StreamEntry<>(id, fields);
    }
}
