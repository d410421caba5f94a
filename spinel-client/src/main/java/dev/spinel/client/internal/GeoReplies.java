package dev.spinel.client.internal;

import dev.spinel.client.GeoCoordinates;
import dev.spinel.client.GeoResult;
import dev.spinel.client.GeoValue;
import dev.spinel.protocol.RespValue;

import java.util.List;

/** Argument encoding and reply converters of the geo commands. Stateless and thread-safe. */
public final class GeoReplies {
    private GeoReplies() {
    }

    /** GEOADD's {@code longitude latitude member} triples. */
    public static <K, V> Object[] args(Dispatcher<K, V> d, List<GeoValue<V>> values) {
        Object[] out = new Object[values.size() * 3];
        int i = 0;
        for (GeoValue<V> g : values) {
            out[i++] = d.num(g.longitude());
            out[i++] = d.num(g.latitude());
            out[i++] = d.v(g.value());
        }
        return out;
    }

    /** GEOPOS: one [longitude, latitude] per member, null for a missing one. */
    public static Reply<List<GeoCoordinates>> positions() {
        return v -> Replies.list(v, GeoReplies::coordinates);
    }

    private static GeoCoordinates coordinates(RespValue v) {
        if (v instanceof RespValue.Null) {
            return null;
        }
        List<RespValue> xy = Replies.items(v);
        return new GeoCoordinates(Replies.toDouble(xy.get(0)), Replies.toDouble(xy.get(1)));
    }

    /** GEOHASH: one 11-character geohash per member, null for a missing one. */
    public static Reply<List<String>> hashes() {
        return v -> Replies.list(v, h -> h instanceof RespValue.Null ? null : Replies.text(h));
    }

    /**
     * GEOSEARCH: a member alone, or [member, distance?, hash?, coordinates?] when WITH* options were
     * given; each part is told apart by its type (bulk string, integer, array), in the server's order.
     */
    public static <K, V> Reply<List<GeoResult<V>>> results(Replies<K, V> replies) {
        return v -> Replies.list(v, item -> {
            if (!(item instanceof RespValue.Array a)) {
                return new GeoResult<>(replies.value.convert(item), null, null, null);
            }
            List<RespValue> parts = a.items();
            Double dist = null;
            Long hash = null;
            GeoCoordinates xy = null;
            for (RespValue p : parts.subList(1, parts.size())) {
                switch (p) {
                    case RespValue.Integer i -> hash = i.value();
                    case RespValue.Array c -> xy = coordinates(c);
                    default -> dist = Replies.toDouble(p);
                }
            }
            return new GeoResult<>(replies.value.convert(parts.get(0)), dist, hash, xy);
        });
    }
}
