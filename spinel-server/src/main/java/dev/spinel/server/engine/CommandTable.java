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
 * allocation (ASCII case-insensitive, open addressing). Each command's metadata comes from Redis's
 * own table ({@link CommandMetadata}); only handlers are code. A name of up to 8 bytes (GET, SET and most others)
 * is found by its bytes packed into one {@code long}, lowercased all at once: one hash and one comparison
 * instead of a loop over the bytes for each (the loops were ~4 % of a pipelined server's samples).
 *
 * <p>Thread-safety: filled during start-up, read-only afterwards.
 */
public final class CommandTable {
    private static final int SLOTS = 1024;
    private final Command[] slots = new Command[SLOTS];
    private final byte[][] names = new byte[SLOTS][];
    private final Map<String, Command> byName = new TreeMap<>();
    /** Names of up to {@value #SHORT} bytes, packed ({@link #pack}): the key, its length, its command. */
    private static final int SHORT = 8;
    private static final int SHORT_BITS = 10;
    private final long[] shortKeys = new long[1 << SHORT_BITS];
    private final byte[] shortLengths = new byte[1 << SHORT_BITS];
    private final Command[] shortSlots = new Command[1 << SHORT_BITS];
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

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
        if (key.length <= SHORT) {
            long packed = pack(key, 0, key.length);
            for (int i = 0; ; i++) {
                int slot = (shortHash(packed) + i) & (shortSlots.length - 1);
                if (shortSlots[slot] == null) {
                    shortSlots[slot] = c;
                    shortKeys[slot] = packed;
                    shortLengths[slot] = (byte) key.length;
                    break;
                }
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
        if (len <= SHORT) {
            return lookupShort(buf, off, len);
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

    private Command lookupShort(byte[] buf, int off, int len) {
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
