package dev.spinel.server.commands.string;

import dev.spinel.protocol.Args;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;

/**
 * String commands that work on lengths and byte ranges: APPEND, SETRANGE, GETRANGE (and its old
 * name SUBSTR), STRLEN. Growing a string is bounded by {@code proto-max-bulk-len} before anything is
 * allocated; a changed string is a new array (stored strings are immutable).
 *
 * <p>Thread-safety: stateless; each command holds its key's segment lock throughout.
 */
public final class StringRangeCommands {
    private StringRangeCommands() {
    }

    public static final RedisError TOO_BIG = new RedisError("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
    static final RedisError OFFSET_RANGE = new RedisError("ERR offset is out of range");
    static final RedisError NO_MEMORY = new RedisError("ERR out of memory building the string");
    /** The largest array the JVM reliably allocates. */
    private static final long MAX_ARRAY = Integer.MAX_VALUE - 8;
    private static final byte[] EMPTY = new byte[0];

    static void register(CommandTable t) {
        t.register("append", StringRangeCommands::append);
        t.register("setrange", StringRangeCommands::setrange);
        t.register("getrange", StringRangeCommands::getrange);
        t.register("substr", StringRangeCommands::getrange);
        t.register("strlen", StringRangeCommands::strlen);
    }

    /**
     * Redis's checkStringLength: a string of {@code size + append} bytes must fit proto-max-bulk-len
     * (overflow included). Spinel also refuses what no Java array can hold.
     */
    public static int checkStringLength(Session s, long size, long append) {
        long total = size + append;
        if (total < size || total > s.engine().config().protoMaxBulkLen.value() || total > MAX_ARRAY) {
            throw TOO_BIG;
        }
        return (int) total;
    }

    /** A zeroed array of a checked length; a heap too small for it is an error reply, not a crash. */
    public static byte[] allocate(int length) {
        try {
            return new byte[length];
        } catch (OutOfMemoryError e) {
            throw NO_MEMORY;
        }
    }

    // APPEND key value
    static void append(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            long total;
            if (e == null) {
                seg.insert(a.copy(1), h, a.copy(2), -1);
                total = a.length(2);
            } else {
                byte[] old = Keys.string(e);
                int n = checkStringLength(s, old.length, a.length(2));
                byte[] v = allocate(n);
                System.arraycopy(old, 0, v, 0, old.length);
                System.arraycopy(a.buffer(), a.offset(2), v, old.length, a.length(2));
                e = seg.replaceValue(e, v);
                e.stringMark(Entry.STRING_RAW); // Redis appends to an unshared raw copy (dbUnshareStringValue)
                total = n;
            }
            s.dirty(1);
            s.notify(Notifications.STRING, "append", a, 1);
            s.out().integer(total);
        } finally {
            seg.unlock();
        }
    }

    // SETRANGE key offset value
    static void setrange(Session s, Args a) {
        long offset = NumberArgs.parseLong(a, 2);
        if (offset < 0) {
            throw OFFSET_RANGE;
        }
        int vlen = a.length(3);
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            byte[] old = e == null ? EMPTY : Keys.string(e);
            if (vlen == 0) {
                s.out().integer(old.length); // nothing to write: no key is created, nothing changes
                return;
            }
            int end = checkStringLength(s, offset, vlen);
            byte[] v = allocate(Math.max(old.length, end));
            System.arraycopy(old, 0, v, 0, old.length);
            System.arraycopy(a.buffer(), a.offset(3), v, (int) offset, vlen);
            if (e == null) {
                e = seg.insert(a.copy(1), h, v, -1);
            } else {
                e = seg.replaceValue(e, v);
            }
            e.stringMark(Entry.STRING_RAW); // Redis writes into a raw sds (new, or unshared by dbUnshareStringValue)
            s.dirty(1);
            s.notify(Notifications.STRING, "setrange", a, 1);
            s.out().integer(v.length);
        } finally {
            seg.unlock();
        }
    }

    // GETRANGE key start end   (SUBSTR key start end)
    static void getrange(Session s, Args a) {
        long start = NumberArgs.parseLong(a, 2);
        long end = NumberArgs.parseLong(a, 3);
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            if (e == null) {
                s.out().bulk(EMPTY);
                return;
            }
            byte[] v = Keys.string(e);
            long len = v.length;
            if (start < 0 && end < 0 && start > end) {
                s.out().bulk(EMPTY);
                return;
            }
            if (start < 0) {
                start += len;
            }
            if (end < 0) {
                end += len;
            }
            start = Math.max(start, 0);
            end = Math.max(end, 0);
            if (end >= len) {
                end = len - 1;
            }
            if (start > end || len == 0) {
                s.out().bulk(EMPTY);
            } else {
                s.out().bulk(v, (int) start, (int) (end - start + 1));
            }
        } finally {
            seg.unlock();
        }
    }

    // STRLEN key
    static void strlen(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            s.out().integer(e == null ? 0 : Keys.stringLength(e));
        } finally {
            seg.unlock();
        }
    }
}
