package dev.spinel.protocol;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Finds which arguments of a request are keys, from Redis 7.0's key specifications (the
 * {@code begin_search}/{@code find_keys} trees in {@link CommandSpec#info()}), as Redis's
 * {@code getKeysFromCommandWithSpecs} does; SORT's STORE key is found the way Redis's
 * {@code sortGetKeys} finds it. Used by WATCH invalidation, transactions, ACL key checks and COMMAND
 * GETKEYS/GETKEYSANDFLAGS: the one place that reads Redis's key specifications.
 *
 * <p>Stateless and thread-safe.
 */
public final class KeyPositions {
    static final int[] NONE = new int[0];

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
     * The index of the request's only key when its command has exactly one key at a fixed position (SET, INCR,
     * HSET...) and the request has that argument; -1 otherwise (use {@link #of}). Allocates nothing: for paths
     * that run per write.
     */
    public static int singleKey(CommandSpec spec, Args args) {
        int i = spec.keySpecs().singleIndex;
        return i > 0 && i < args.count() ? i : -1;
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
        if (ks.migrate) {
            List<FlaggedKey> keys = migrateKeys(args);
            int[] out = new int[keys.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = keys.get(i).pos();
            }
            return out;
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
        if (ks.migrate) {
            // INCOMPLETE key specs: Redis asks migrateGetKeys (the key at 3 is no key when KEYS follows)
            List<FlaggedKey> keys = migrateKeys(args);
            int[] out = new int[keys.size() * 2];
            for (int i = 0; i < keys.size(); i++) {
                out[2 * i] = keys.get(i).pos();
                out[2 * i + 1] = ACL_READ | ACL_WRITE;
            }
            return out;
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

    /** A key as COMMAND GETKEYSANDFLAGS shows it: its argument index and the flags of the spec that found it. */
    public record FlaggedKey(int pos, List<String> flags) {
    }

    private static final List<String> READ = List.of("RO", "access");
    private static final List<String> OVERWRITE = List.of("OW", "update");
    private static final List<String> READ_WRITE = List.of("RW", "access", "update");
    private static final List<String> MIGRATED = List.of("RW", "access", "delete");

    /**
     * The keys of a request with the flags of their key specs, as COMMAND GETKEYS and GETKEYSANDFLAGS answer.
     * Stricter than {@link #of}: a key list the arguments cannot hold makes the request invalid instead of
     * shortening it, and a spec flagged INCOMPLETE leaves the answer to Redis's dedicated rules (getkeys_proc),
     * which SORT, SORT_RO, MIGRATE, SET and BITFIELD have here.
     *
     * @return the keys in order, or {@code null} when the arguments do not form a valid key list
     */
    public static List<FlaggedKey> flagged(CommandSpec spec, Args args) {
        switch (spec.name()) {
            case "sort" -> {
                int[] k = sortKeys(args);
                return k.length == 2 ? List.of(new FlaggedKey(k[0], READ), new FlaggedKey(k[1], OVERWRITE))
                        : List.of(new FlaggedKey(k[0], READ));
            }
            case "sort_ro" -> {
                return List.of(new FlaggedKey(1, READ));
            }
            case "migrate" -> {
                return migrateKeys(args);
            }
            case "set", "bitfield" -> {
                int acl = variableFlags(spec.name(), args);
                return List.of(new FlaggedKey(1, acl == ACL_READ ? READ : acl == ACL_WRITE ? OVERWRITE : READ_WRITE));
            }
            default -> { }
        }
        KeySpecs ks = spec.keySpecs();
        List<FlaggedKey> out = new ArrayList<>();
        if (ks.specs == null) {
            return out;
        }
        for (KeySpec k : ks.specs) {
            if (k.aclFlags() < 0) {
                continue; // NOT_KEY: shard channels
            }
            if (k.incomplete() || !k.strictKeys(args, out)) {
                return null;
            }
        }
        return out;
    }

    /**
     * Redis's migrateGetKeys: the key at 3, or with KEYS every argument after it (AUTH/AUTH2 values skipped),
     * none when KEYS follows a key that is not empty.
     */
    private static List<FlaggedKey> migrateKeys(Args args) {
        int argc = args.count();
        int first = 3;
        int num = 1;
        for (int i = 6; i < argc; i++) {
            if (args.is(i, "KEYS")) {
                if (args.length(3) > 0) {
                    return new ArrayList<>(); // KEYS with a key at 3: an error, no key at all
                }
                first = i + 1;
                num = argc - first;
                break;
            }
            if (args.is(i, "AUTH")) {
                i += 1;
            } else if (args.is(i, "AUTH2")) {
                i += 2;
            }
        }
        List<FlaggedKey> out = new ArrayList<>(num);
        for (int i = 0; i < num; i++) {
            out.add(new FlaggedKey(first + i, MIGRATED));
        }
        return out;
    }

    static int[] range(int first, int last, int step, int argc) {
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
                store = i + 1; // not skipped, as Redis's sortGetKeys: the last STORE wins
            }
        }
        return store > 0 ? new int[]{1, store} : new int[]{1};
    }

}
