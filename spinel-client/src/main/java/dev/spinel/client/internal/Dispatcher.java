package dev.spinel.client.internal;

import dev.spinel.client.Codec;
import dev.spinel.client.ScoredValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Where typed commands go, and the argument helpers they share (keys and values through the client's
 * codec, numbers as Redis parses them). Implementations are thread-safe.
 */
public interface Dispatcher<K, V> {
    /** Sends a command on this dispatcher's connection. */
    <T> CompletableFuture<T> dispatch(Command<T> command);

    /** Sends a blocking command (BLPOP...) where it cannot stall other callers. */
    <T> CompletableFuture<T> dispatchBlocking(Command<T> command);

    Replies<K, V> replies();

    /** A key as a command argument: a UTF-8 String goes as is (encoded straight into the write buffer). */
    default Object k(K key) {
        Replies<K, V> r = replies();
        return r.codec == Codec.UTF8 ? Objects.requireNonNull(key, "key") : r.codec.encodeKey(key);
    }

    /** A value as a command argument; see {@link #k}. */
    default Object v(V value) {
        Replies<K, V> r = replies();
        return r.codec == Codec.UTF8 ? Objects.requireNonNull(value, "value") : r.codec.encodeValue(value);
    }

    default Object[] ks(K[] keys) {
        Object[] out = new Object[keys.length];
        for (int i = 0; i < keys.length; i++) {
            out[i] = k(keys[i]);
        }
        return out;
    }

    default Object[] vs(V[] values) {
        Object[] out = new Object[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = v(values[i]);
        }
        return out;
    }

    default Object[] kv(Map<K, V> map) {
        Object[] out = new Object[map.size() * 2];
        int i = 0;
        for (Map.Entry<K, V> e : map.entrySet()) {
            out[i++] = k(e.getKey());
            out[i++] = v(e.getValue());
        }
        return out;
    }

    default Object[] scored(List<ScoredValue<V>> members) {
        Object[] out = new Object[members.size() * 2];
        int i = 0;
        for (ScoredValue<V> m : members) {
            out[i++] = num(m.score());
            out[i++] = v(m.value());
        }
        return out;
    }

    /** A double as Redis reads it ({@code inf}, {@code -inf}; integers without a fraction). */
    default String num(double d) {
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return Long.toString((long) d);
        }
        return Double.toString(d);
    }

    /** How long a blocking command may legitimately wait on the server (0 = forever). */
    default long blockingNanos(double timeoutSeconds) {
        return timeoutSeconds <= 0 ? TimeUnit.DAYS.toNanos(365 * 100) : (long) (timeoutSeconds * 1e9);
    }

    /** Flattens the parts (an {@code Object[]} part contributes its elements). */
    default Object[] cat(Object... parts) {
        int n = 0;
        for (Object p : parts) {
            n += p instanceof Object[] a ? a.length : 1;
        }
        Object[] out = new Object[n];
        int i = 0;
        for (Object p : parts) {
            if (p instanceof Object[] a) {
                System.arraycopy(a, 0, out, i, a.length);
                i += a.length;
            } else {
                out[i++] = p;
            }
        }
        return out;
    }

    /** The arguments of {@code execute}: byte[], String, integral numbers, doubles. */
    default Object[] rawArgs(String command, Object[] args) {
        List<Object> out = new ArrayList<>(args.length + 1);
        out.add(command);
        for (Object a : args) {
            switch (a) {
                case byte[] b -> out.add(b);
                case String s -> out.add(s);
                case Long l -> out.add(l);
                case Integer i -> out.add((long) i);
                case Short s -> out.add((long) s);
                case Byte b -> out.add((long) b);
                case Double d -> out.add(num(d));
                case Float f -> out.add(num(f));
                case null -> throw new IllegalArgumentException("null argument");
                default -> throw new IllegalArgumentException("argument of type " + a.getClass().getName()
                        + " (use byte[], String or a number)");
            }
        }
        return out.toArray();
    }
}
