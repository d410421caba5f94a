package dev.spinel.protocol;

import java.util.Arrays;
import java.util.List;

/**
 * Finds which arguments of a request are keys, from Redis 7.0's key specifications (the
 * {@code begin_search}/{@code find_keys} trees in {@link CommandSpec#info()}), as Redis's
 * {@code getKeysFromCommandWithSpecs} does; SORT's STORE key is found the way Redis's
 * {@code sortGetKeys} finds it. Used by WATCH invalidation, transactions and COMMAND GETKEYS.
 *
 * <p>Stateless and thread-safe.
 */
public final class KeyPositions {
    private static final int[] NONE = new int[0];

    private KeyPositions() {
    }

    /**
     * The argument indexes that are keys, in order; empty when the command has none.
     *
     * @throws IllegalArgumentException when the request cannot hold its declared keys
     *                                  (e.g. a numkeys larger than the arguments)
     */
    public static int[] of(CommandSpec spec, Args args) {
        int argc = args.count();
        if ("sort".equals(spec.name()) || "sort_ro".equals(spec.name())) {
            return sortKeys(args);
        }
        List<RespValue> fields = ((RespValue.Array) spec.info()).items();
        if (fields.size() <= 8) {
            return range(spec.firstKey(), spec.lastKey(), spec.step(), argc);
        }
        List<RespValue> keySpecs = items(fields.get(8));
        int[] out = new int[8];
        int n = 0;
        for (RespValue ks : keySpecs) {
            RespValue begin = field(ks, "begin_search");
            RespValue find = field(ks, "find_keys");
            if (begin == null || find == null) {
                continue;
            }
            int first = beginSearch(begin, args);
            if (first <= 0) {
                continue;
            }
            int[] keys = findKeys(find, first, args);
            for (int k : keys) {
                if (n == out.length) {
                    out = Arrays.copyOf(out, n * 2);
                }
                out[n++] = k;
            }
        }
        return n == 0 ? NONE : Arrays.copyOf(out, n);
    }

    private static int beginSearch(RespValue begin, Args args) {
        String type = RespValue.text(field(begin, "type"));
        RespValue spec = field(begin, "spec");
        int argc = args.count();
        if ("index".equals(type)) {
            int pos = (int) integer(field(spec, "index"));
            return pos < 0 ? argc + pos : pos;
        }
        if ("keyword".equals(type)) {
            String keyword = RespValue.text(field(spec, "keyword"));
            int start = (int) integer(field(spec, "startfrom"));
            int from = start >= 0 ? start : argc + start;
            int step = start >= 0 ? 1 : -1;
            for (int i = from; i > 0 && i < argc; i += step) {
                if (args.is(i, keyword.toUpperCase(java.util.Locale.ROOT))) {
                    return i + 1;
                }
            }
            return 0;
        }
        return 0;
    }

    private static int[] findKeys(RespValue find, int first, Args args) {
        String type = RespValue.text(field(find, "type"));
        RespValue spec = field(find, "spec");
        int argc = args.count();
        if (first >= argc) {
            return NONE;
        }
        if ("range".equals(type)) {
            int lastKey = (int) integer(field(spec, "lastkey"));
            int step = (int) integer(field(spec, "keystep"));
            int limit = (int) integer(field(spec, "limit"));
            int last;
            if (lastKey >= 0) {
                last = first + lastKey;
            } else if (limit <= 1) {
                last = argc + lastKey;
            } else {
                last = first + ((argc - first) / limit + lastKey);
            }
            return range(first, Math.min(last, argc - 1), step, argc);
        }
        if ("keynum".equals(type)) {
            int numIdx = first + (int) integer(field(spec, "keynumidx"));
            int firstKey = first + (int) integer(field(spec, "firstkey"));
            int step = (int) integer(field(spec, "keystep"));
            if (numIdx >= argc) {
                return NONE;
            }
            long numKeys;
            try {
                numKeys = args.parseLong(numIdx);
            } catch (NumberFormatException e) {
                return NONE;
            }
            if (numKeys <= 0) {
                return NONE;
            }
            long lastIdx = firstKey + (numKeys - 1) * step;
            if (lastIdx >= argc) {
                throw new IllegalArgumentException("Invalid number of arguments specified for command");
            }
            return range(firstKey, (int) lastIdx, step, argc);
        }
        return NONE;
    }

    private static int[] range(int first, int last, int step, int argc) {
        if (first <= 0 || step <= 0) {
            return NONE;
        }
        if (last < 0) {
            last = argc + last;
        }
        last = Math.min(last, argc - 1);
        if (last < first) {
            return NONE;
        }
        int[] out = new int[(last - first) / step + 1];
        for (int i = 0; i < out.length; i++) {
            out[i] = first + i * step;
        }
        return out;
    }

    private static int[] sortKeys(Args args) {
        int argc = args.count();
        int store = -1;
        for (int i = 2; i < argc; i++) {
            if (args.is(i, "LIMIT")) {
                i += 2;
            } else if (args.is(i, "GET") || args.is(i, "BY")) {
                i += 1;
            } else if (args.is(i, "STORE") && i + 1 < argc) {
                store = i + 1;
                i += 1;
            }
        }
        return store > 0 ? new int[]{1, store} : new int[]{1};
    }

    private static RespValue field(RespValue map, String name) {
        if (!(map instanceof RespValue.MapValue m)) {
            return null;
        }
        List<RespValue> e = m.entries();
        for (int i = 0; i + 1 < e.size(); i += 2) {
            if (name.equals(RespValue.text(e.get(i)))) {
                return e.get(i + 1);
            }
        }
        return null;
    }

    private static long integer(RespValue v) {
        return v instanceof RespValue.Integer i ? i.value() : 0;
    }

    private static List<RespValue> items(RespValue v) {
        return switch (v) {
            case RespValue.Array a -> a.items();
            case RespValue.SetValue s -> s.items();
            default -> List.of();
        };
    }
}
