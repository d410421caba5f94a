package dev.spinel.server.engine;

import dev.spinel.server.config.NotifyEventsParam;
import dev.spinel.server.engine.pubsub.PubSub;

import java.nio.charset.StandardCharsets;

/**
 * Keyspace notifications ({@code notify-keyspace-events}): a command that changes a key announces
 * it on {@code __keyspace@<db>__:<key>} (message: the event) and/or {@code __keyevent@<db>__:<event>}
 * (message: the key), for the event classes enabled (the letters are parsed by {@link NotifyEventsParam}). Call sites pass the event's class; when the
 * class is off (the default: everything off) the cost is one volatile read and a mask.
 *
 * <p>Thread-safety: the flags are volatile; publishing goes through the thread-safe {@link PubSub}.
 */
public final class Notifications {
    public static final int KEYSPACE = NotifyEventsParam.KEYSPACE;
    public static final int KEYEVENT = NotifyEventsParam.KEYEVENT;
    public static final int GENERIC = NotifyEventsParam.GENERIC;
    public static final int STRING = NotifyEventsParam.STRING;
    public static final int LIST = NotifyEventsParam.LIST;
    public static final int SET = NotifyEventsParam.SET;
    public static final int HASH = NotifyEventsParam.HASH;
    public static final int ZSET = NotifyEventsParam.ZSET;
    public static final int EXPIRED = NotifyEventsParam.EXPIRED;
    public static final int EVICTED = NotifyEventsParam.EVICTED;
    public static final int STREAM = NotifyEventsParam.STREAM;
    public static final int KEY_MISS = NotifyEventsParam.KEY_MISS;
    public static final int NEW = NotifyEventsParam.NEW;

    private final PubSub<?> pubSub;
    private volatile int flags;

    public Notifications(PubSub<?> pubSub) {
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
}
