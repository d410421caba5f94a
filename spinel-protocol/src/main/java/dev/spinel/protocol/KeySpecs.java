package dev.spinel.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A command's key specifications, decoded once from its {@code COMMAND INFO} entry (so that finding
 * the keys of a request reads a few ints, not the metadata tree). Immutable.
 */
public final class KeySpecs {
    final boolean sort;
    /** MIGRATE: its key specs are incomplete, its keys are those of Redis's migrateGetKeys. */
    final boolean migrate;
    /** Null: the entry has no key specs; the legacy first/last/step apply. */
    final KeySpec[] specs;
    /**
     * The argument index of the command's only key when that is all its specs say (one key at a fixed index, as
     * SET, INCR, HSET, LPUSH), else 0: {@link KeyPositions#singleKey} finds it without allocating.
     */
    final int singleIndex;

    private KeySpecs(boolean sort, boolean migrate, KeySpec[] specs) {
        this.sort = sort;
        this.migrate = migrate;
        this.specs = specs;
        KeySpec only = specs != null && specs.length == 1 ? specs[0] : null;
        this.singleIndex = !sort && !migrate && only != null && only.begin() == KeySpec.BEGIN_INDEX && only.index() > 0
                && only.find() == KeySpec.FIND_RANGE && only.lastKey() == 0 ? only.index() : 0;
    }

    /** Decodes the key specifications of a {@code COMMAND INFO} entry (see {@link CommandSpec#keySpecs()}). */
    public static KeySpecs compile(String name, RespValue info) {
        boolean sort = "sort".equals(name) || "sort_ro".equals(name);
        boolean migrate = "migrate".equals(name);
        List<RespValue> fields = info instanceof RespValue.Array a ? a.items() : List.of();
        if (fields.size() <= 8) {
            return new KeySpecs(sort, migrate, null);
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
            boolean incomplete = false;
            List<String> flagNames = new ArrayList<>();
            for (RespValue flag : items(field(ks, "flags"))) {
                String f = text(flag);
                flagNames.add(f);
                readOnly |= "RO".equals(f);
                incomplete |= "INCOMPLETE".equalsIgnoreCase(f);
                notKey |= "NOT_KEY".equalsIgnoreCase(f);
                acl |= "ACCESS".equalsIgnoreCase(f) ? KeyPositions.ACL_READ : 0;
                acl |= "INSERT".equalsIgnoreCase(f) || "DELETE".equalsIgnoreCase(f) || "UPDATE".equalsIgnoreCase(f)
                        ? KeyPositions.ACL_WRITE : 0;
            }
            specs.add(new KeySpec(List.copyOf(flagNames), incomplete, readOnly, notKey ? -1 : acl,
                    KeySpec.beginType(text(field(begin, "type"))),
                    (int) integer(field(bs, "index")),
                    keyword == null ? null : keyword.toUpperCase(Locale.ROOT),
                    (int) integer(field(bs, "startfrom")),
                    KeySpec.findType(text(field(find, "type"))),
                    (int) integer(field(fs, "lastkey")),
                    (int) integer(field(fs, "keystep")),
                    (int) integer(field(fs, "limit")),
                    (int) integer(field(fs, "keynumidx")),
                    (int) integer(field(fs, "firstkey"))));
        }
        return new KeySpecs(sort, migrate, specs.toArray(new KeySpec[0]));
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
