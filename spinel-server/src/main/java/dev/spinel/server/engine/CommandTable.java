package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.CommandMetadata;
import dev.spinel.protocol.CommandSpec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The commands Spinel implements, looked up by the bytes of the request's first argument without
 * allocation ({@link NameIndex}). Each command's metadata comes from Redis's own table ({@link CommandMetadata});
 * only handlers are code. Clients call commands by the names {@code rename-command} leaves them; the server's own
 * requests and replays find them by their own names ({@link #lookupOriginal}).
 *
 * <p>Thread-safety: filled and renamed during start-up, read-only afterwards.
 */
public final class CommandTable {
    /** Every command under its own name: for the server's own calls (gRPC, propagation, ACL's names). */
    private final NameIndex original = new NameIndex();
    /** The names clients call: {@link #original} until {@code rename-command} changes them. */
    private NameIndex visible = original;
    private final Map<String, Command> byName = new TreeMap<>();
    private Map<String, Command> byVisibleName = byName;

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
        if (visible != original) {
            throw new IllegalStateException("registered after rename-command: " + name);
        }
        Command c = new Command(spec, handler);
        original.add(lower.getBytes(StandardCharsets.US_ASCII), c);
        byName.put(lower, c);
        return c;
    }

    /**
     * Redis's {@code rename-command from to}: clients call the command {@code from} names (under any name it was
     * given before) by {@code to} from now on, or not at all when {@code to} is empty. Its own name stays what
     * replies, ACL rules, statistics and propagation use, as in Redis (which keeps {@code orig_commands}).
     *
     * @throws IllegalArgumentException when {@code from} is no command's name or {@code to} is one (the config
     *     loader refuses such a line first, in Redis's words)
     */
    public void rename(String from, String to) {
        String f = lowerAscii(from);
        String t = lowerAscii(to);
        Map<String, Command> names = new TreeMap<>(byVisibleName);
        Command c = names.remove(f);
        if (c == null) {
            throw new IllegalArgumentException("no command is called " + from);
        }
        if (!t.isEmpty() && names.putIfAbsent(t, c) != null) {
            throw new IllegalArgumentException("a command is called " + to + " already");
        }
        NameIndex index = new NameIndex();
        names.forEach((name, command) -> index.add(name.getBytes(StandardCharsets.UTF_8), command));
        byVisibleName = names;
        visible = index;
    }

    /**
     * For a name no client can call: the command of that own name when {@code s} replays the server's own log or
     * applies a master's stream (they name commands so whatever {@code rename-command} did here), else {@code null}.
     */
    Command replayed(Session s, Args args) {
        return s.replaying() || s.isReplicationApplier() ? lookupOriginal(args) : null;
    }

    /** ASCII letters lowercased, every other character as it is: how a request's bytes are compared. */
    private static String lowerAscii(String name) {
        StringBuilder b = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            b.append(ch >= 'A' && ch <= 'Z' ? (char) (ch + 32) : ch);
        }
        return b.toString();
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

    /** The command a client names by argument 0 (after {@code rename-command}), or {@code null}. */
    public Command lookup(Args args) {
        return visible.find(args.buffer(), args.offset(0), args.length(0));
    }

    /**
     * The command argument 0 names by its own name, whatever {@code rename-command} did: for the server's own
     * requests (gRPC, scripts of the engine's own) and for replaying what the server itself logged or a master sent.
     */
    public Command lookupOriginal(Args args) {
        return original.find(args.buffer(), args.offset(0), args.length(0));
    }

    /** The command of this own name (not a {@code rename-command} name), or {@code null}. */
    public Command get(String name) {
        return byName.get(name.toLowerCase(Locale.ROOT));
    }

    /** The command a client calls by {@code name} (COMMAND INFO, LATENCY HISTOGRAM), or {@code null}. */
    public Command visible(String name) {
        return byVisibleName.get(lowerAscii(name));
    }

    /** The commands clients can call (COMMAND COUNT, LIST, INFO, DOCS), in the order of the names they call. */
    public Collection<Command> all() {
        return byVisibleName.values();
    }

    /** Every command clients can call and its subcommands (COMMAND LIST, statistics), as {@link #all()} orders them. */
    public List<Command> allWithSubcommands() {
        List<Command> out = new ArrayList<>();
        for (Command c : byVisibleName.values()) {
            out.add(c);
            out.addAll(new TreeMap<>(c.subcommands()).values());
        }
        return out;
    }

    /**
     * Commands by name, found from a request's bytes without allocation (ASCII case-insensitive, open addressing).
     * A name of up to 8 bytes (GET, SET and most others) is found by its bytes packed into one {@code long},
     * lowercased all at once: one hash and one comparison instead of a loop over the bytes for each (the loops were
     * ~4 % of a pipelined server's samples).
     *
     * <p>Thread-safety: filled by one thread before it is published (a final field or a volatile write), read-only
     * afterwards.
     */
    static final class NameIndex {
        private static final int SLOTS = 1024;
        private final Command[] slots = new Command[SLOTS];
        private final byte[][] names = new byte[SLOTS][];
        /** Names of up to {@value #SHORT} bytes, packed ({@link #pack}): the key, its length, its command. */
        private static final int SHORT = 8;
        private static final int SHORT_BITS = 10;
        private final long[] shortKeys = new long[1 << SHORT_BITS];
        private final byte[] shortLengths = new byte[1 << SHORT_BITS];
        private final Command[] shortSlots = new Command[1 << SHORT_BITS];
        private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

        /** Adds {@code c} under {@code lower}, a name whose ASCII letters are lowercase. */
        void add(byte[] lower, Command c) {
            int h = hash(lower, 0, lower.length);
            for (int i = 0; ; i++) {
                int s = (h + i) & (SLOTS - 1);
                if (slots[s] == null) {
                    slots[s] = c;
                    names[s] = lower;
                    break;
                }
            }
            if (lower.length <= SHORT) {
                long packed = pack(lower, 0, lower.length);
                for (int i = 0; ; i++) {
                    int slot = (shortHash(packed) + i) & (shortSlots.length - 1);
                    if (shortSlots[slot] == null) {
                        shortSlots[slot] = c;
                        shortKeys[slot] = packed;
                        shortLengths[slot] = (byte) lower.length;
                        break;
                    }
                }
            }
        }

        /** The command named by bytes {@code [off, off + len)} of {@code buf} in any ASCII case, or {@code null}. */
        Command find(byte[] buf, int off, int len) {
            if (len <= SHORT) {
                return findShort(buf, off, len);
            }
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

        private Command findShort(byte[] buf, int off, int len) {
            long packed = pack(buf, off, len);
            for (int i = 0; ; i++) {
                int slot = (shortHash(packed) + i) & (shortSlots.length - 1);
                Command c = shortSlots[slot];
                if (c == null || (shortKeys[slot] == packed && shortLengths[slot] == len)) {
                    return c;
                }
            }
        }

        /**
         * Bytes {@code [off, off + len)} ({@code len} at most 8) as a little-endian {@code long}, ASCII letters
         * lowercased, the bytes past {@code len} zero. The length is compared apart: a NUL byte packs as padding.
         */
        static long pack(byte[] b, int off, int len) {
            long w;
            if (len == 0) {
                return 0;
            }
            if (off + Long.BYTES <= b.length) {
                w = (long) LONGS.get(b, off) & (-1L >>> (Long.SIZE - Byte.SIZE * len));
            } else {
                w = 0;
                for (int i = 0; i < len; i++) {
                    w |= (b[off + i] & 0xFFL) << (Byte.SIZE * i);
                }
            }
            return lowerAscii(w);
        }

        /** Each byte of {@code x} in 'A'..'Z' plus 32, every other byte as it is (no carry crosses a byte). */
        private static long lowerAscii(long x) {
            long low7 = x & 0x7F7F7F7F7F7F7F7FL;
            long atLeastA = low7 + 0x3F3F3F3F3F3F3F3FL; // top bit set where the byte is >= 'A'
            long aboveZ = low7 + 0x2525252525252525L; // top bit set where the byte is > 'Z'
            long upper = atLeastA & ~aboveZ & ~x & 0x8080808080808080L; // not for bytes >= 0x80
            return x | (upper >>> 2);
        }

        private static int shortHash(long packed) {
            return (int) ((packed * 0x9E3779B97F4A7C15L) >>> (Long.SIZE - SHORT_BITS));
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
}
