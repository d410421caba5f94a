package dev.spinel.protocol;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

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
        return collect(spec, args, false);
    }

    /**
     * The keys a write may change: as {@link #of} without those of read-only key specs (flag RO, e.g.
     * the sources of SINTERSTORE or BITOP), the keys Redis's commands pass to {@code signalModifiedKey}.
     *
     * @throws IllegalArgumentException as {@link #of}
     */
    public static int[] written(CommandSpec spec, Args args) {
        return collect(spec, args, true);
    }

    private static int[] collect(CommandSpec spec, Args args, boolean writtenOnly) {
        KeySpecs ks = spec.keySpecs();
        int argc = args.count();
        if (ks.sort) {
            return sortKeys(args);
        }
        if (ks.specs == null) {
            return range(spec.firstKey(), spec.lastKey(), spec.step(), argc);
        }
        int[] out = null;
        int n = 0;
        for (KeySpec k : ks.specs) {
            if (writtenOnly && k.readOnly()) {
                continue;
            }
            int first = k.beginSearch(args);
            if (first <= 0) {
                continue;
            }
            int[] keys = k.findKeys(first, args);
            if (keys.length == 0) {
                continue;
            }
            if (out == null && n == 0) {
                out = keys; // the common case, one key spec: no copy
                n = keys.length;
                continue;
            }
            if (n + keys.length > out.length) {
                out = Arrays.copyOf(out, Math.max(out.length * 2, n + keys.length));
            }
            System.arraycopy(keys, 0, out, n, keys.length);
            n += keys.length;
        }
        return n == 0 ? NONE : n == out.length ? out : Arrays.copyOf(out, n);
    }

    /**
     * A command's key specifications, decoded once from its {@code COMMAND INFO} entry (so that finding
     * the keys of a request reads a few ints, not the metadata tree). Immutable.
     */
    public static final class KeySpecs {
        final boolean sort;
        /** Null: the entry has no key specs; the legacy first/last/step apply. */
        final KeySpec[] specs;

        private KeySpecs(boolean sort, KeySpec[] specs) {
            this.sort = sort;
            this.specs = specs;
        }
    }

    /** Decodes the key specifications of a {@code COMMAND INFO} entry (see {@link CommandSpec#keySpecs()}). */
    public static KeySpecs compile(String name, RespValue info) {
        boolean sort = "sort".equals(name) || "sort_ro".equals(name);
        List<RespValue> fields = info instanceof RespValue.Array a ? a.items() : List.of();
        if (fields.size() <= 8) {
            return new KeySpecs(sort, null);
        }
        List<KeySpec> specs = new ArrayList<>();
        for (RespValue ks : items(fields.get(8))) {
            RespValue begin = field(ks, "begin_search");
            RespValue find = field(ks, "find_keys");
            if (begin == null || find == null) {
                continue;
            }
            RespValue bs = field(begin, "spec");
            RespValue fs = field(find, "spec");
            String keyword = text(field(bs, "keyword"));
            boolean readOnly = false;
            int acl = 0;
            boolean notKey = false;
            for (RespValue flag : items(field(ks, "flags"))) {
                String f = text(flag);
                readOnly |= "RO".equals(f);
                notKey |= "NOT_KEY".equalsIgnoreCase(f);
                acl |= "ACCESS".equalsIgnoreCase(f) ? ACL_READ : 0;
                acl |= "INSERT".equalsIgnoreCase(f) || "DELETE".equalsIgnoreCase(f) || "UPDATE".equalsIgnoreCase(f)
                        ? ACL_WRITE : 0;
            }
            specs.add(new KeySpec(readOnly, notKey ? -1 : acl,
                    beginType(text(field(begin, "type"))),
                    (int) integer(field(bs, "index")),
                    keyword == null ? null : keyword.toUpperCase(Locale.ROOT),
                    (int) integer(field(bs, "startfrom")),
                    findType(text(field(find, "type"))),
                    (int) integer(field(fs, "lastkey")),
                    (int) integer(field(fs, "keystep")),
                    (int) integer(field(fs, "limit")),
                    (int) integer(field(fs, "keynumidx")),
                    (int) integer(field(fs, "firstkey"))));
        }
        return new KeySpecs(sort, specs.toArray(new KeySpec[0]));
    }

    private static final int BEGIN_OTHER = 0;
    private static final int BEGIN_INDEX = 1;
    private static final int BEGIN_KEYWORD = 2;
    private static final int FIND_OTHER = 0;
    private static final int FIND_RANGE = 1;
    private static final int FIND_KEYNUM = 2;

    private static int beginType(String t) {
        return "index".equals(t) ? BEGIN_INDEX : "keyword".equals(t) ? BEGIN_KEYWORD : BEGIN_OTHER;
    }

    private static int findType(String t) {
        return "range".equals(t) ? FIND_RANGE : "keynum".equals(t) ? FIND_KEYNUM : FIND_OTHER;
    }

    /** One key spec: read-only or not, where the search begins (an index or after a keyword) and how keys follow. */
    private record KeySpec(boolean readOnly, int aclFlags, int begin, int index, String keyword, int startFrom,
                           int find, int lastKey, int keyStep, int limit, int keyNumIdx, int firstKey) {

        int beginSearch(Args args) {
            int argc = args.count();
            if (begin == BEGIN_INDEX) {
                return index < 0 ? argc + index : index;
            }
            if (begin == BEGIN_KEYWORD) {
                int from = startFrom >= 0 ? startFrom : argc + startFrom;
                int step = startFrom >= 0 ? 1 : -1;
                for (int i = from; i > 0 && i < argc; i += step) {
                    if (args.is(i, keyword)) {
                        return i + 1;
                    }
                }
            }
            return 0;
        }

        int[] findKeys(int first, Args args) {
            int argc = args.count();
            if (first >= argc) {
                return NONE;
            }
            if (find == FIND_RANGE) {
                int last;
                if (lastKey >= 0) {
                    last = first + lastKey;
                } else if (limit <= 1) {
                    last = argc + lastKey;
                } else {
                    last = first + ((argc - first) / limit + lastKey);
                }
                return range(first, Math.min(last, argc - 1), keyStep, argc);
            }
            if (find == FIND_KEYNUM) {
                int numIdx = first + keyNumIdx;
                int firstKeyIdx = first + firstKey;
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
                long lastIdx = firstKeyIdx + (numKeys - 1) * keyStep;
                if (lastIdx >= argc) {
                    throw new IllegalArgumentException("Invalid number of arguments specified for command");
                }
                return range(firstKeyIdx, (int) lastIdx, keyStep, argc);
            }
            return NONE;
        }
    }

    /** ACL permission a key needs: read (key spec flag ACCESS). */
    public static final int ACL_READ = 1;
    /** ACL permission a key needs: write (key spec flags INSERT, DELETE, UPDATE). */
    public static final int ACL_WRITE = 2;

    /**
     * The keys an ACL checks, as Redis's {@code getKeysFromCommandWithSpecs}: pairs of (argument index,
     * permission flags {@link #ACL_READ}/{@link #ACL_WRITE}) in a flat array; key specs flagged NOT_KEY
     * (shard channels) are left out.
     *
     * @throws IllegalArgumentException as {@link #of}
     */
    public static int[] aclKeys(CommandSpec spec, Args args) {
        KeySpecs ks = spec.keySpecs();
        if (ks.sort) {
            int[] k = sortKeys(args);
            return k.length == 2 ? new int[] {k[0], ACL_READ, k[1], ACL_WRITE} : new int[] {k[0], ACL_READ};
        }
        if (spec.name().equals("set") || spec.name().equals("bitfield")) {
            // VARIABLE_FLAGS key specs: Redis asks the command (setGetKeys, bitfieldGetKeys).
            return new int[] {1, variableFlags(spec.name(), args)};
        }
        if (ks.specs == null) {
            int[] k = range(spec.firstKey(), spec.lastKey(), spec.step(), args.count());
            int[] out = new int[k.length * 2];
            for (int i = 0; i < k.length; i++) {
                out[2 * i] = k[i];
            }
            return out;
        }
        int[] out = NONE;
        int n = 0;
        for (KeySpec k : ks.specs) {
            if (k.aclFlags() < 0) {
                continue;
            }
            int first = k.beginSearch(args);
            if (first <= 0) {
                continue;
            }
            int[] keys = k.findKeys(first, args);
            if (n + 2 * keys.length > out.length) {
                out = Arrays.copyOf(out, Math.max(out.length * 2, n + 2 * keys.length));
            }
            for (int key : keys) {
                out[n++] = key;
                out[n++] = k.aclFlags();
            }
        }
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    /** SET reads its key only with GET; BITFIELD writes it unless it has only GET and OVERFLOW operations. */
    private static int variableFlags(String name, Args args) {
        if (name.equals("set")) {
            for (int i = 3; i < args.count(); i++) {
                if (args.is(i, "GET")) {
                    return ACL_READ | ACL_WRITE;
                }
            }
            return ACL_WRITE;
        }
        for (int i = 2; i < args.count(); i++) {
            int more = args.count() - i - 1;
            if (args.is(i, "GET") && more >= 2) {
                i += 2;
            } else if (args.is(i, "OVERFLOW") && more >= 1) {
                i += 1;
            } else {
                return ACL_READ | ACL_WRITE;
            }
        }
        return ACL_READ;
    }

    /**
     * Whether the command has any key spec, NOT_KEY ones (shard channels) included, or legacy key positions:
     * Redis's {@code key_specs_num != 0}, which decides whether cluster mode checks a command's slot.
     */
    public static boolean hasKeySpecs(CommandSpec spec) {
        KeySpecs ks = spec.keySpecs();
        return ks.sort || (ks.specs == null ? spec.firstKey() > 0 : ks.specs.length > 0);
    }

    /** Whether the command has keys an ACL checks (a key spec not flagged NOT_KEY, or legacy key positions). */
    public static boolean hasAclKeys(CommandSpec spec) {
        KeySpecs ks = spec.keySpecs();
        if (ks.sort) {
            return true;
        }
        if (ks.specs == null) {
            return spec.firstKey() > 0;
        }
        for (KeySpec k : ks.specs) {
            if (k.aclFlags() >= 0) {
                return true;
            }
        }
        return false;
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

    private static String text(RespValue v) {
        return v == null ? null : RespValue.text(v);
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
