package dev.spinel.server.config;

import java.util.function.IntConsumer;

/**
 * {@code notify-keyspace-events}: the classes of keyspace notifications, as Redis's flag letters.
 * Stored as a bit set; CONFIG GET prints it in Redis's canonical order ("KEA" reads back as "AKE").
 *
 * <p>Thread-safety: one volatile int.
 */
public final class NotifyEventsParam extends Param {
    public static final int KEYSPACE = 1;
    public static final int KEYEVENT = 1 << 1;
    public static final int GENERIC = 1 << 2;
    public static final int STRING = 1 << 3;
    public static final int LIST = 1 << 4;
    public static final int SET = 1 << 5;
    public static final int HASH = 1 << 6;
    public static final int ZSET = 1 << 7;
    public static final int EXPIRED = 1 << 8;
    public static final int EVICTED = 1 << 9;
    public static final int STREAM = 1 << 10;
    public static final int KEY_MISS = 1 << 11;
    public static final int LOADED = 1 << 12;
    public static final int MODULE = 1 << 13;
    public static final int NEW = 1 << 14;
    /** What 'A' stands for: every class except key-miss and new-key events. */
    public static final int ALL = GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;

    private volatile int flags;
    private volatile IntConsumer onChange = f -> { };

    /** Applies every new value (and the current one at once) to the running server. */
    public void onChange(IntConsumer c) {
        this.onChange = c;
        c.accept(flags);
    }

    public NotifyEventsParam() {
        super("notify-keyspace-events", true);
    }

    public int flags() {
        return flags;
    }

    @Override
    public String get() {
        int f = flags;
        StringBuilder sb = new StringBuilder();
        if ((f & ALL) == ALL) {
            sb.append('A');
        } else {
            char[] letters = {'g', '$', 'l', 's', 'h', 'z', 'x', 'e', 't', 'd', 'n'};
            int[] bits = {GENERIC, STRING, LIST, SET, HASH, ZSET, EXPIRED, EVICTED, STREAM, MODULE, NEW};
            for (int i = 0; i < bits.length; i++) {
                if ((f & bits[i]) != 0) {
                    sb.append(letters[i]);
                }
            }
        }
        if ((f & KEYSPACE) != 0) {
            sb.append('K');
        }
        if ((f & KEYEVENT) != 0) {
            sb.append('E');
        }
        if ((f & KEY_MISS) != 0) {
            sb.append('m');
        }
        return sb.toString();
    }

    @Override
    public String defaultValue() {
        return "";
    }

    @Override
    public void set(String value) throws ConfigException {
        int f = 0;
        for (int i = 0; i < value.length(); i++) {
            f |= switch (value.charAt(i)) {
                case 'A' -> ALL;
                case 'g' -> GENERIC;
                case '$' -> STRING;
                case 'l' -> LIST;
                case 's' -> SET;
                case 'h' -> HASH;
                case 'z' -> ZSET;
                case 'x' -> EXPIRED;
                case 'e' -> EVICTED;
                case 'K' -> KEYSPACE;
                case 'E' -> KEYEVENT;
                case 't' -> STREAM;
                case 'm' -> KEY_MISS;
                case 'd' -> MODULE;
                case 'n' -> NEW;
                default -> throw new ConfigException("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
            };
        }
        flags = f;
        onChange.accept(f);
    }
}
