package dev.spinel.server.commands.string;

import dev.spinel.protocol.Args;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.GrowableString;
import dev.spinel.store.InPlaceStrings;
import dev.spinel.store.Segment;

/**
 * String commands that work on lengths and byte ranges: APPEND, SETRANGE, GETRANGE (and its old
 * name SUBSTR), STRLEN. Growing a string is bounded by {@code proto-max-bulk-len} before anything is
 * allocated. APPEND and SETRANGE on an existing key change its string in place ({@link InPlaceStrings}: spare room
 * as Redis's sds keeps, so a sequence of appends costs O(appended bytes)); GETRANGE reads it without a copy.
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

    /**
     * {@link InPlaceStrings#grow} of an existing string key to at least {@code length} bytes (a checked length);
     * a heap too small for the copy or the growth is an error reply, not a crash.
     */
    public static Entry grow(Segment seg, Entry e, int length) {
        try {
            return InPlaceStrings.grow(seg, e, length);
        } catch (OutOfMemoryError oom) {
            throw NO_MEMORY;
        }
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
                int old = Keys.stringLength(e);
                int n = checkStringLength(s, old, a.length(2));
                e = grow(seg, e, n); // Redis appends to an unshared raw sds (dbUnshareStringValue, sdscatlen)
                System.arraycopy(a.buffer(), a.offset(2), e.growableString().array(), old, a.length(2));
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
            int old = e == null ? 0 : Keys.stringLength(e);
            if (vlen == 0) {
                s.out().integer(old); // nothing to write: no key is created, nothing changes
                return;
            }
            int end = checkStringLength(s, offset, vlen);
            int length;
            if (e == null) { // Redis's new string is exactly as long as the write needs
                byte[] v = allocate(end);
                System.arraycopy(a.buffer(), a.offset(3), v, (int) offset, vlen);
                e = seg.insert(a.copy(1), h, v, -1);
                e.stringMark(Entry.STRING_RAW);
                length = end;
            } else { // an unshared raw sds grown with zeros (dbUnshareStringValue, sdsgrowzero)
                e = grow(seg, e, end);
                System.arraycopy(a.buffer(), a.offset(3), e.growableString().array(), (int) offset, vlen);
                length = e.stringLength();
            }
            s.dirty(1);
            s.notify(Notifications.STRING, "setrange", a, 1);
            s.out().integer(length);
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
            long len = Keys.stringLength(e);
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
                replyRange(s, e, (int) start, (int) (end - start + 1));
            }
        } finally {
            seg.unlock();
        }
    }

    /** Bytes {@code [from, from + n)} of the entry's string as a bulk reply, copied once (no copy of the whole value). */
    private static void replyRange(Session s, Entry e, int from, int n) {
        Object stored = e.storedValue();
        if (stored instanceof byte[] b) {
            s.out().bulk(b, from, n);
        } else if (stored instanceof GrowableString g) {
            s.out().bulk(g.array(), from, n);
        } else {
            s.out().bulk(Keys.string(e), from, n); // held in the entry: at most a few dozen bytes
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
