package dev.spinel.server.engine;

import java.nio.charset.StandardCharsets;

/**
 * Keyspace notifications ({@code notify-keyspace-events}): a command that changes a key announces
 * it on {@code __keyspace@<db>__:<key>} (message: the event) and/or {@code __keyevent@<db>__:<event>}
 * (message: the key), for the event classes enabled. Call sites pass the event's class; when the
 * class is off (the default: everything off) the cost is one volatile read and a mask.
 *
 * <p>Thread-safety: the flags are volatile; publishing goes through the thread-safe {@link PubSub}.
 */
public final class Notifications {
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
    public static final int MODULE = 1 << 12;
    public static final int NEW = 1 << 13;
    public static final int ALL = GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;

    private final PubSub pubSub;
    private volatile int flags;

    public Notifications(PubSub pubSub) {
        this.pubSub = pubSub;
    }

    public void flags(int f) {
        this.flags = f;
    }

    public int flags() {
        return flags;
    }

    /** Whether events of class {@code type} are published at all (to skip building the key). */
    public boolean enabled(int type) {
        int f = flags;
        return (f & type) != 0 && (f & (KEYSPACE | KEYEVENT)) != 0;
    }

    /** Announces {@code event} on {@code key} of database {@code db} if class {@code type} is enabled. */
    public void notify(int type, String event, byte[] key, int db) {
        int f = flags;
        if ((f & type) == 0 || (f & (KEYSPACE | KEYEVENT)) == 0) {
            return;
        }
        byte[] eventBytes = event.getBytes(StandardCharsets.US_ASCII);
        if ((f & KEYSPACE) != 0) {
            pubSub.publish(concat("__keyspace@" + db + "__:", key), eventBytes);
        }
        if ((f & KEYEVENT) != 0) {
            pubSub.publish(concat("__keyevent@" + db + "__:", eventBytes), key);
        }
    }

    private static byte[] concat(String prefix, byte[] tail) {
        byte[] p = prefix.getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[p.length + tail.length];
        System.arraycopy(p, 0, out, 0, p.length);
        System.arraycopy(tail, 0, out, p.length, tail.length);
        return out;
    }

    /** Parses the config string; returns -1 on a character Redis does not accept. */
    public static int parse(String classes) {
        int f = 0;
        for (char c : classes.toCharArray()) {
            f |= switch (c) {
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
                default -> -1;
            };
            if (f < 0) {
                return -1;
            }
        }
        return f;
    }

    /** Formats flags as CONFIG GET prints them (Redis's keyspaceEventsFlagsToString). */
    public static String format(int f) {
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
}
