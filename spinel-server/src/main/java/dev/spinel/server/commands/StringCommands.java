package dev.spinel.server.commands;

import dev.spinel.protocol.Args;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Errors;
import dev.spinel.server.engine.Session;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;

/**
 * String commands (Redis's t_string.c): GET, SET and its variants, counters, ranges.
 * Strings are stored as bare {@code byte[]} values.
 */
public final class StringCommands {
    private StringCommands() {
    }

    public static void register(CommandTable t, SpinelServer server) {
        t.register("get", StringCommands::get);
        t.register("set", StringCommands::set);
    }

    // GET key
    static void get(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            if (e == null) {
                s.out().nullBulk();
            } else {
                s.out().bulk(Keys.string(e));
            }
        } finally {
            seg.unlock();
        }
    }

    private static final int NX = 1;
    private static final int XX = 2;
    private static final int GET = 4;
    private static final int KEEPTTL = 8;
    private static final int EX = 16;
    private static final int PX = 32;
    private static final int EXAT = 64;
    private static final int PXAT = 128;
    private static final int ANY_EXPIRE = EX | PX | EXAT | PXAT;

    // SET key value [NX | XX] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]
    static void set(Session s, Args a) {
        int flags = 0;
        long expireArg = 0;
        for (int i = 3; i < a.count(); i++) {
            boolean hasNext = i + 1 < a.count();
            if (a.is(i, "NX") && (flags & (XX)) == 0) {
                flags |= NX;
            } else if (a.is(i, "XX") && (flags & NX) == 0) {
                flags |= XX;
            } else if (a.is(i, "GET")) {
                flags |= GET;
            } else if (a.is(i, "KEEPTTL") && (flags & ANY_EXPIRE) == 0) {
                flags |= KEEPTTL;
            } else if (hasNext && (flags & (ANY_EXPIRE | KEEPTTL)) == 0 && expireOption(a, i) != 0) {
                flags |= expireOption(a, i);
                i++;
                expireArg = parseLongOrError(a, i);
            } else {
                throw Errors.SYNTAX;
            }
        }
        long expireAt = -1;
        if ((flags & ANY_EXPIRE) != 0) {
            expireAt = absoluteExpire(s, flags, expireArg, "set");
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            if ((flags & GET) != 0) {
                if (e == null) {
                    s.out().nullBulk();
                } else {
                    s.out().bulk(Keys.string(e));
                }
            }
            if (((flags & NX) != 0 && e != null) || ((flags & XX) != 0 && e == null)) {
                if ((flags & GET) == 0) {
                    s.out().nullBulk();
                }
                return;
            }
            byte[] value = a.copy(2);
            if (e == null) {
                seg.insert(a.copy(1), h, value, expireAt);
            } else {
                seg.replaceValue(e, value);
                if ((flags & KEEPTTL) == 0) {
                    seg.setExpire(e, expireAt);
                }
            }
            s.dirty(1);
            if ((flags & GET) == 0) {
                s.out().ok();
            }
        } finally {
            seg.unlock();
        }
    }

    private static int expireOption(Args a, int i) {
        if (a.is(i, "EX")) {
            return EX;
        }
        if (a.is(i, "PX")) {
            return PX;
        }
        if (a.is(i, "EXAT")) {
            return EXAT;
        }
        if (a.is(i, "PXAT")) {
            return PXAT;
        }
        return 0;
    }

    static long parseLongOrError(Args a, int i) {
        try {
            return a.parseLong(i);
        } catch (NumberFormatException e) {
            throw Errors.NOT_INTEGER;
        }
    }

    /**
     * Converts an EX/PX/EXAT/PXAT argument to absolute Unix ms with Redis's checks: not positive, or
     * overflowing once converted, is "invalid expire time".
     */
    static long absoluteExpire(Session s, int unitFlag, long v, String command) {
        if (v <= 0) {
            throw Errors.invalidExpire(command);
        }
        boolean seconds = (unitFlag & (EX | EXAT)) != 0;
        if (seconds && v > Long.MAX_VALUE / 1000) {
            throw Errors.invalidExpire(command);
        }
        long ms = seconds ? v * 1000 : v;
        boolean relative = (unitFlag & (EX | PX)) != 0;
        if (relative) {
            if (ms > Long.MAX_VALUE - s.now()) {
                throw Errors.invalidExpire(command);
            }
            ms += s.now();
        }
        return ms;
    }
}
