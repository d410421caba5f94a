package dev.spinel.client.internal;

import dev.spinel.client.Codec;
import dev.spinel.client.KeyValue;
import dev.spinel.client.ScanCursor;
import dev.spinel.client.ScoredValue;
import dev.spinel.protocol.RespValue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The reply converters of one client, built once for its codec. RESP2 and RESP3 shapes are both
 * accepted (a map may arrive as a RESP3 map or as a flat RESP2 array; a double as {@code ,} or as a
 * bulk string). Immutable and thread-safe.
 */
public final class Replies<K, V> {
    public static final Reply<RespValue> RAW = v -> v;
    public static final Reply<String> STATUS = Replies::text;
    /** A status that may be absent (SET ... NX not done). */
    public static final Reply<String> STATUS_OR_NULL = v -> v instanceof RespValue.Null ? null : text(v);
    public static final Reply<Long> LONG = v -> ((RespValue.Integer) v).value();
    public static final Reply<Boolean> BOOLEAN = v -> switch (v) {
        case RespValue.Integer i -> i.value() != 0;
        case RespValue.BooleanValue b -> b.value();
        case RespValue.SimpleString s -> true;   // SET ... NX answered OK
        case RespValue.Null n -> false;          // SET ... NX not done
        default -> throw new IllegalStateException("not a boolean reply");
    };
    /** A double that may be absent (ZSCORE of a missing member). */
    public static final Reply<Double> DOUBLE = Replies::toDouble;
    /** A number that may be absent (ZRANK of a missing member). */
    public static final Reply<Long> LONG_OR_NULL = v -> v instanceof RespValue.Null ? null : ((RespValue.Integer) v).value();
    /** Numbers, some absent (BITFIELD: null where OVERFLOW FAIL refused a write). */
    public static final Reply<List<Long>> LONGS_OR_NULLS = v -> list(v, LONG_OR_NULL);

    final Codec<K, V> codec;
    public final Reply<V> value;
    public final Reply<K> key;
    public final Reply<List<V>> values;
    public final Reply<List<K>> keys;
    public final Reply<Map<K, V>> map;
    public final Reply<KeyValue<K, V>> keyValue;
    public final Reply<List<ScoredValue<V>>> scored;
    public final Reply<KeyValue<K, ScoredValue<V>>> keyScored;
    public final Reply<ScanCursor<K>> scan;
    public final Reply<ScanCursor<V>> sscan;
    public final Reply<ScanCursor<KeyValue<K, V>>> hscan;
    public final Reply<ScanCursor<ScoredValue<V>>> zscan;

    public Replies(Codec<K, V> codec) {
        this.codec = codec;
        this.value = v -> v instanceof RespValue.Null ? null : codec.decodeValue(bytes(v));
        this.key = v -> v instanceof RespValue.Null ? null : codec.decodeKey(bytes(v));
        this.values = v -> list(v, value);
        this.keys = v -> list(v, key);
        this.map = v -> {
            List<RespValue> items = items(v);
            Map<K, V> m = new LinkedHashMap<>(Math.max(4, items.size()));
            for (int i = 0; i + 1 < items.size(); i += 2) {
                m.put(key.convert(items.get(i)), value.convert(items.get(i + 1)));
            }
            return m;
        };
        this.keyValue = v -> {
            if (v instanceof RespValue.Null) {
                return null;
            }
            List<RespValue> items = items(v);
            return new KeyValue<>(key.convert(items.get(0)), value.convert(items.get(1)));
        };
        this.scored = v -> {
            List<RespValue> items = items(v);
            List<ScoredValue<V>> out = new ArrayList<>(items.size());
            if (!items.isEmpty() && isAggregate(items.get(0))) { // RESP3: [[member, score], ...]
                for (RespValue pair : items) {
                    List<RespValue> p = items(pair);
                    out.add(new ScoredValue<>(value.convert(p.get(0)), toDouble(p.get(1))));
                }
            } else { // RESP2: member, score, member, score ...
                for (int i = 0; i + 1 < items.size(); i += 2) {
                    out.add(new ScoredValue<>(value.convert(items.get(i)), toDouble(items.get(i + 1))));
                }
            }
            return out;
        };
        this.keyScored = v -> { // BZPOPMIN/BZPOPMAX: key, member, score
            if (v instanceof RespValue.Null) {
                return null;
            }
            List<RespValue> items = items(v);
            return new KeyValue<>(key.convert(items.get(0)), new ScoredValue<>(value.convert(items.get(1)), toDouble(items.get(2))));
        };
        this.scan = v -> {
            List<RespValue> items = items(v);
            return new ScanCursor<>(text(items.get(0)), list(items.get(1), key));
        };
        this.sscan = v -> {
            List<RespValue> items = items(v);
            return new ScanCursor<>(text(items.get(0)), list(items.get(1), value));
        };
        this.hscan = v -> {
            List<RespValue> items = items(v);
            List<RespValue> flat = items(items.get(1));
            List<KeyValue<K, V>> pairs = new ArrayList<>(flat.size() / 2);
            for (int i = 0; i + 1 < flat.size(); i += 2) {
                pairs.add(new KeyValue<>(key.convert(flat.get(i)), value.convert(flat.get(i + 1))));
            }
            return new ScanCursor<>(text(items.get(0)), pairs);
        };
        this.zscan = v -> {
            List<RespValue> items = items(v);
            return new ScanCursor<>(text(items.get(0)), scored.convert(items.get(1)));
        };
    }

    public Codec<K, V> codec() {
        return codec;
    }

    private static boolean isAggregate(RespValue v) {
        return v instanceof RespValue.Array || v instanceof RespValue.MapValue || v instanceof RespValue.SetValue;
    }

    static <T> List<T> list(RespValue v, Reply<T> element) {
        if (v instanceof RespValue.Null) {
            return Collections.emptyList();
        }
        List<RespValue> items = items(v);
        List<T> out = new ArrayList<>(items.size());
        for (RespValue item : items) {
            out.add(element.convert(item));
        }
        return out;
    }

    static List<RespValue> items(RespValue v) {
        return switch (v) {
            case RespValue.Array a -> a.items();
            case RespValue.SetValue s -> s.items();
            case RespValue.MapValue m -> m.entries();
            case RespValue.Push p -> p.items();
            default -> throw new IllegalStateException("not an aggregate reply");
        };
    }

    static byte[] bytes(RespValue v) {
        return switch (v) {
            case RespValue.BulkString b -> b.value();
            case RespValue.SimpleString s -> s.value().getBytes(StandardCharsets.UTF_8);
            case RespValue.Verbatim t -> t.text().getBytes(StandardCharsets.UTF_8);
            case RespValue.Integer i -> Long.toString(i.value()).getBytes(StandardCharsets.US_ASCII);
            default -> throw new IllegalStateException("not a string reply");
        };
    }

    static String text(RespValue v) {
        String s = RespValue.text(v);
        if (s == null) {
            throw new IllegalStateException("not a string reply");
        }
        return s;
    }

    static Double toDouble(RespValue v) {
        return switch (v) {
            case RespValue.Null n -> null;
            case RespValue.DoubleValue d -> d.value();
            case RespValue.Integer i -> (double) i.value();
            default -> {
                String s = text(v);
                yield switch (s) {
                    case "inf", "+inf" -> Double.POSITIVE_INFINITY;
                    case "-inf" -> Double.NEGATIVE_INFINITY;
                    case "nan" -> Double.NaN;
                    default -> Double.parseDouble(s);
                };
            }
        };
    }
}
