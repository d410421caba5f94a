package dev.spinel.server.commands.common;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.CommandSpec;
import dev.spinel.protocol.RespValue;
import dev.spinel.server.errors.RedisError;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Finds the key arguments of a request from its command's Redis 7.0 key specifications
 * (begin_search index/keyword, find_keys range/keynum), as Redis's {@code getKeysUsingKeySpecs};
 * a few commands whose specs are incomplete get Redis's dedicated rules ({@code SORT}).
 * Used by COMMAND GETKEYS / GETKEYSANDFLAGS.
 *
 * <p>Stateless; the specs are immutable.
 */
public final class KeySpecs {
    /** A key position and the flags of the spec that found it. */
    public record Key(int pos, List<String> flags) {
    }

    private KeySpecs() {
    }

    /**
     * COMMAND GETKEYS's checks and answer for a known command whose arguments start at {@code from}:
     * Redis's errors for keyless commands, wrong argument counts and unusable key lists.
     */
    public static List<Key> getkeys(CommandSpec spec, Args a, int from) {
        if (!hasKeys(spec)) {
            throw new RedisError("ERR The command has no key arguments");
        }
        if (!spec.arityAccepts(a.count() - from)) {
            throw new RedisError("ERR Invalid number of arguments specified for command");
        }
        List<Key> keys = keys(spec, a, from);
        if (keys == null || keys.isEmpty()) {
            if (spec.has("no_mandatory_keys")) {
                return List.of();
            }
            throw new RedisError("ERR Invalid arguments specified for command");
        }
        return keys;
    }

    /** Whether the command has any key spec (COMMAND GETKEYS refuses keyless commands). */
    static boolean hasKeys(CommandSpec spec) {
        for (RespValue ks : specs(spec)) {
            if (!strings(field(ks, "flags")).contains("not_key")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The keys of {@code argv} (arguments {@code from..count-1} of {@code a}, the command name first),
     * or {@code null} when the arguments do not form a valid key list.
     */
    static List<Key> keys(CommandSpec spec, Args a, int from) {
        int argc = a.count() - from;
        String name = spec.name();
        // Commands whose specs cannot say it all have Redis's dedicated rules (getkeys_proc).
        switch (name) {
            case "sort" -> {
                return sortKeys(a, from);
            }
            case "sort_ro" -> {
                return List.of(new Key(1, List.of("RO", "access")));
            }
            case "migrate" -> {
                return migrateKeys(a, from);
            }
            default -> { }
        }
        List<Key> out = new ArrayList<>();
        if (name.equals("set") || name.equals("bitfield")) {
            return variableFlagKeys(name, a, from);
        }
        for (RespValue ks : specs(spec)) {
            List<String> flags = strings(field(ks, "flags"));
            if (flags.contains("not_key")) {
                continue;
            }
            if (flags.contains("incomplete")) {
                return null;
            }
            RespValue bs = field(ks, "begin_search");
            RespValue fk = field(ks, "find_keys");
            String bsType = RespValue.text(field(bs, "type"));
            RespValue bsSpec = field(bs, "spec");
            int first = 0;
            if ("index".equals(bsType)) {
                first = num(bsSpec, "index");
                if (first >= argc) {
                    continue;
                }
            } else if ("keyword".equals(bsType)) {
                String keyword = RespValue.text(field(bsSpec, "keyword"));
                int startfrom = num(bsSpec, "startfrom");
                int start = startfrom > 0 ? startfrom : argc + startfrom;
                int end = startfrom > 0 ? argc - 1 : 0;
                for (int i = start; i != end; i = start <= end ? i + 1 : i - 1) {
                    if (i >= argc || i < 1) {
                        break;
                    }
                    if (a.string(from + i).toLowerCase(Locale.ROOT).equals(keyword.toLowerCase(Locale.ROOT))) {
                        first = i + 1;
                        break;
                    }
                }
                if (first == 0) {
                    continue;
                }
            } else {
                return null;
            }
            String fkType = RespValue.text(field(fk, "type"));
            RespValue fkSpec = field(fk, "spec");
            int last;
            int step;
            if ("range".equals(fkType)) {
                int lastkey = num(fkSpec, "lastkey");
                int limit = num(fkSpec, "limit");
                if (lastkey >= 0) {
                    last = first + lastkey;
                } else if (limit == 0) {
                    last = argc + lastkey;
                } else {
                    last = first + ((argc - first) / limit + lastkey);
                }
                step = num(fkSpec, "keystep");
            } else if ("keynum".equals(fkType)) {
                int idx = num(fkSpec, "keynumidx");
                if (first + idx >= argc) {
                    return null;
                }
                long numkeys;
                try {
                    numkeys = a.parseLong(from + first + idx);
                } catch (NumberFormatException e) {
                    return null;
                }
                if (numkeys < 0 || numkeys > argc) {
                    return null;
                }
                first += num(fkSpec, "firstkey");
                last = first + (int) numkeys - 1;
                step = num(fkSpec, "keystep");
            } else {
                return null;
            }
            if (last >= argc || last < first || first >= argc) {
                return null;
            }
            for (int i = first; i <= last; i += Math.max(1, step)) {
                out.add(new Key(i, flags));
            }
        }
        return out;
    }

    /**
     * The commands whose key flags depend on their options (Redis's setGetKeys, bitfieldGetKeys):
     * SET with GET reads the old value; BITFIELD without SET/INCRBY only reads.
     */
    private static List<Key> variableFlagKeys(String name, Args a, int from) {
        int argc = a.count() - from;
        boolean reads = false;
        boolean writes = false;
        for (int i = name.equals("set") ? 3 : 2; i < argc; i++) {
            String w = a.string(from + i).toLowerCase(Locale.ROOT);
            if (name.equals("set") && w.equals("get")) {
                reads = true;
            } else if (name.equals("bitfield") && (w.equals("set") || w.equals("incrby"))) {
                writes = true;
            }
        }
        List<String> flags;
        if (name.equals("set")) {
            flags = reads ? List.of("RW", "access", "update") : List.of("OW", "update");
        } else {
            flags = writes ? List.of("RW", "access", "update") : List.of("RO", "access");
        }
        return List.of(new Key(1, flags));
    }

    /** Redis's sortGetKeys: the key, and the STORE destination (skipping LIMIT's, BY's and GET's arguments). */
    private static List<Key> sortKeys(Args a, int from) {
        List<Key> out = new ArrayList<>();
        out.add(new Key(1, List.of("RO", "access")));
        int argc = a.count() - from;
        int found = 0;
        for (int i = 2; i < argc; i++) {
            String w = a.string(from + i).toLowerCase(Locale.ROOT);
            switch (w) {
                case "limit" -> i += 2;
                case "get", "by" -> i += 1;
                case "store" -> {
                    // The last STORE wins, as in SORT itself.
                    if (i + 1 < argc) {
                        found = i + 1;
                    }
                }
                default -> { }
            }
        }
        if (found > 0) {
            out.add(new Key(found, List.of("OW", "update")));
        }
        return out;
    }

    /** Redis's migrateGetKeys: the key at 3, or with KEYS every argument after it (AUTH/AUTH2 values skipped). */
    private static List<Key> migrateKeys(Args a, int from) {
        int argc = a.count() - from;
        int first = 3;
        int num = 1;
        if (argc > 6) {
            for (int i = 6; i < argc; i++) {
                String w = a.string(from + i).toLowerCase(Locale.ROOT);
                if (w.equals("keys")) {
                    first = i + 1;
                    num = argc - first;
                    break;
                }
                if (w.equals("auth")) {
                    i += 1;
                } else if (w.equals("auth2")) {
                    i += 2;
                }
            }
        }
        List<Key> out = new ArrayList<>();
        for (int i = 0; i < num; i++) {
            out.add(new Key(first + i, List.of("RW", "access", "delete")));
        }
        return out;
    }

    private static List<RespValue> specs(CommandSpec spec) {
        List<RespValue> info = ((RespValue.Array) spec.info()).items();
        if (info.size() <= 8) {
            return List.of();
        }
        return items(info.get(8));
    }

    static RespValue field(RespValue map, String key) {
        if (map instanceof RespValue.MapValue m) {
            List<RespValue> e = m.entries();
            for (int i = 0; i < e.size(); i += 2) {
                if (key.equals(RespValue.text(e.get(i)))) {
                    return e.get(i + 1);
                }
            }
        }
        return new RespValue.Null();
    }

    private static int num(RespValue map, String key) {
        return field(map, key) instanceof RespValue.Integer i ? (int) i.value() : 0;
    }

    public static List<RespValue> items(RespValue v) {
        return switch (v) {
            case RespValue.Array a -> a.items();
            case RespValue.SetValue s -> s.items();
            default -> List.of();
        };
    }

    private static List<String> strings(RespValue v) {
        List<String> out = new ArrayList<>();
        for (RespValue x : items(v)) {
            out.add(RespValue.text(x));
        }
        return out;
    }
}
