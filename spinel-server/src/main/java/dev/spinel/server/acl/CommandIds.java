package dev.spinel.server.acl;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.CommandMetadata;
import dev.spinel.protocol.CommandSpec;
import dev.spinel.protocol.RespValue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every command and subcommand Redis 7.0 knows, numbered for the users' command bitsets, with its ACL
 * categories (from {@code COMMAND INFO}). ACL rules name commands from this table, not from the ones
 * Spinel implements, so that {@code +xadd} is accepted as by Redis. Ids follow the names' order
 * (containers before their subcommands), so rule descriptions are deterministic; Redis's follow its
 * command dictionary's hash order, which changes from run to run.
 *
 * <p>Immutable; built once.
 */
public final class CommandIds {
    /** Redis's categories, in ACL CAT's order. */
    public static final List<String> CATEGORIES = List.of("keyspace", "read", "write", "set", "sortedset", "list",
            "hash", "string", "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking",
            "dangerous", "connection", "transaction", "scripting");

    static final int NO_CHANNELS = 0;
    static final int PUBLISH = 1;
    static final int SUBSCRIBE = 2;
    static final int PSUBSCRIBE = 3;

    private static final List<CommandSpec> SPECS = new ArrayList<>();
    private static final Map<String, Integer> BY_NAME = new HashMap<>();
    private static int[] parent;
    private static int[][] children;
    private static long[] categories;
    private static int[] channels;
    /** Id of the reserved bit set only by +@all (Redis's "future commands" bit). */
    static final int FUTURE;
    /** Number of longs in a bitset over every id and the reserved bit. */
    static final int WORDS;

    static {
        List<Integer> parents = new ArrayList<>();
        List<int[]> kids = new ArrayList<>();
        for (CommandSpec top : new TreeMap<>(CommandMetadata.all()).values()) {
            int id = add(top, -1, parents);
            kids.add(null);
            List<Integer> subs = new ArrayList<>();
            for (CommandSpec sub : new TreeMap<>(top.subcommands()).values()) {
                subs.add(add(sub, id, parents));
                kids.add(new int[0]);
            }
            kids.set(id, subs.stream().mapToInt(Integer::intValue).toArray());
        }
        int n = SPECS.size();
        parent = parents.stream().mapToInt(Integer::intValue).toArray();
        children = kids.toArray(new int[0][]);
        categories = new long[n];
        channels = new int[n];
        for (int i = 0; i < n; i++) {
            CommandSpec s = SPECS.get(i);
            categories[i] = categoriesOf(s);
            channels[i] = switch (s.name()) {
                case "publish", "spublish" -> PUBLISH;
                case "subscribe", "ssubscribe" -> SUBSCRIBE;
                case "psubscribe" -> PSUBSCRIBE;
                default -> NO_CHANNELS;
            };
        }
        FUTURE = n;
        WORDS = n / 64 + 1;
    }

    private CommandIds() {
    }

    private static int add(CommandSpec spec, int parentId, List<Integer> parents) {
        int id = SPECS.size();
        SPECS.add(spec);
        parents.add(parentId);
        BY_NAME.put(spec.name(), id);
        return id;
    }

    private static long categoriesOf(CommandSpec s) {
        long mask = 0;
        if (s.info() instanceof RespValue.Array a && a.items().size() > 6) {
            RespValue cats = a.items().get(6);
            List<RespValue> items = cats instanceof RespValue.SetValue set ? set.items()
                    : cats instanceof RespValue.Array arr ? arr.items() : List.of();
            for (RespValue c : items) {
                String t = RespValue.text(c);
                int i = t == null ? -1 : CATEGORIES.indexOf(t.startsWith("@") ? t.substring(1) : t);
                if (i >= 0) {
                    mask |= 1L << i;
                }
            }
        }
        return mask;
    }

    /** Number of ids (commands and subcommands). */
    public static int count() {
        return SPECS.size();
    }

    /** The id of a full name ({@code get}, {@code config|get}), or -1. */
    public static int id(String fullName) {
        Integer id = BY_NAME.get(fullName.toLowerCase(Locale.ROOT));
        return id == null ? -1 : id;
    }

    /** Redis's strict lookup by name: {@code cmd} or {@code container|sub}; -1 when unknown. */
    static int lookup(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        int bar = lower.indexOf('|');
        if (bar < 0) {
            return id(lower);
        }
        if (lower.indexOf('|', bar + 1) >= 0) {
            return -1;
        }
        int base = id(lower.substring(0, bar));
        if (base < 0 || children[base].length == 0) {
            return -1;
        }
        return id(lower);
    }

    /**
     * The command a request names from argument {@code base} (a container with a second argument names
     * its subcommand), as Redis's lookupCommand; -1 when Redis does not know it.
     */
    public static int resolve(Args a, int base) {
        return resolve(new String(a.copy(base), StandardCharsets.ISO_8859_1), a, base);
    }

    /** As {@link #resolve(Args, int)} for the command whose own name is {@code name} (the client may call it another). */
    public static int resolve(String name, Args a, int base) {
        if (name.indexOf('|') >= 0) {
            return -1;
        }
        int id = id(name);
        if (id >= 0 && children[id].length > 0 && a.count() - base > 1) {
            String sub = new String(a.copy(base + 1), StandardCharsets.ISO_8859_1);
            return sub.indexOf('|') >= 0 ? -1 : id(name + "|" + sub);
        }
        return id;
    }

    public static CommandSpec spec(int id) {
        return SPECS.get(id);
    }

    static int parent(int id) {
        return parent[id];
    }

    static int[] children(int id) {
        return children[id];
    }

    static long categories(int id) {
        return categories[id];
    }

    static int channels(int id) {
        return channels[id];
    }

    /** The category's bit, or 0 when there is no such category (any case). */
    static long category(String name) {
        int i = CATEGORIES.indexOf(name.toLowerCase(Locale.ROOT));
        return i < 0 ? 0 : 1L << i;
    }
}
