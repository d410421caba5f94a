package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.CommandMetadata;
import dev.spinel.protocol.CommandSpec;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The commands Spinel implements, looked up by the bytes of the request's first argument without
 * allocation (ASCII case-insensitive, open addressing). Each command's metadata comes from Redis's
 * own table ({@link CommandMetadata}); only handlers are code.
 *
 * <p>Thread-safety: filled during start-up, read-only afterwards.
 */
public final class CommandTable {
    private static final int SLOTS = 1024;
    private final Command[] slots = new Command[SLOTS];
    private final byte[][] names = new byte[SLOTS][];
    private final Map<String, Command> byName = new TreeMap<>();

    /** Registers a top-level command; its name must be one Redis 7.0 knows. */
    public Command register(String name, CommandHandler handler) {
        String lower = name.toLowerCase(Locale.ROOT);
        CommandSpec spec = CommandMetadata.get(lower);
        if (spec == null) {
            throw new IllegalArgumentException("Redis 7.0 has no command " + name);
        }
        if (byName.containsKey(lower)) {
            throw new IllegalArgumentException("registered twice: " + name);
        }
        Command c = new Command(spec, handler);
        byte[] key = lower.getBytes(StandardCharsets.US_ASCII);
        int h = hash(key, 0, key.length);
        for (int i = 0; ; i++) {
            int s = (h + i) & (SLOTS - 1);
            if (slots[s] == null) {
                slots[s] = c;
                names[s] = key;
                break;
            }
        }
        byName.put(lower, c);
        return c;
    }

    /** Registers a subcommand of a container registered before (e.g. "config", "get"). */
    public Command registerSub(String container, String sub, CommandHandler handler) {
        Command parent = byName.get(container.toLowerCase(Locale.ROOT));
        if (parent == null) {
            throw new IllegalArgumentException("container not registered: " + container);
        }
        CommandSpec spec = parent.spec().subcommands().get(sub.toLowerCase(Locale.ROOT));
        if (spec == null) {
            throw new IllegalArgumentException("Redis 7.0 has no subcommand " + container + "|" + sub);
        }
        Command c = new Command(spec, handler);
        parent.addSubcommand(c);
        return c;
    }

    /** The command named by argument 0, or {@code null}. */
    public Command lookup(Args args) {
        byte[] buf = args.buffer();
        int off = args.offset(0);
        int len = args.length(0);
        int h = hash(buf, off, len);
        for (int i = 0; i < SLOTS; i++) {
            int s = (h + i) & (SLOTS - 1);
            Command c = slots[s];
            if (c == null) {
                return null;
            }
            if (equalsIgnoreCase(names[s], buf, off, len)) {
                return c;
            }
        }
        return null;
    }

    public Command get(String name) {
        return byName.get(name.toLowerCase(Locale.ROOT));
    }

    public Collection<Command> all() {
        return byName.values();
    }

    /** Every command and subcommand, for stats listings. */
    public List<Command> allWithSubcommands() {
        List<Command> out = new ArrayList<>();
        for (Command c : byName.values()) {
            out.add(c);
            out.addAll(new TreeMap<>(c.subcommands()).values());
        }
        return out;
    }

    private static int hash(byte[] b, int off, int len) {
        int h = 0;
        for (int i = 0; i < len; i++) {
            h = h * 31 + (b[off + i] | 0x20);
        }
        return h ^ (h >>> 7);
    }

    private static boolean equalsIgnoreCase(byte[] lower, byte[] b, int off, int len) {
        if (lower.length != len) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            int c = b[off + i];
            if (c >= 'A' && c <= 'Z') {
                c += 32;
            }
            if (c != lower[i]) {
                return false;
            }
        }
        return true;
    }
}
