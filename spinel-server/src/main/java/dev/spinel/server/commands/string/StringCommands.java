package dev.spinel.server.commands.string;

import dev.spinel.protocol.Args;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;

import java.nio.charset.StandardCharsets;

/**
 * String commands (Redis's t_string.c): GET, SET and its variants, GETEX/GETDEL/GETSET. The rest of
 * the family lives beside it: {@link MultiStringCommands} (MGET, MSET, MSETNX), {@link
 * StringRangeCommands} (APPEND, SETRANGE, GETRANGE, STRLEN), {@link CounterCommands} (INCR...,
 * INCRBYFLOAT) and {@link LcsCommand}; this class registers them all. The bitmap commands, which
 * work on strings, are a family of their own ({@code commands.bitmap}).
 *
 * <p>Strings are stored as bare {@code byte[]} values that are never modified once stored: a
 * command that changes a string stores a new array, so a reference taken under the lock stays valid
 * after it is released. A short string of a short key is held in its entry's fields instead
 * ({@code Entry.copyString}); GET and the other replies of a whole value copy it straight into the reply.
 *
 * <p>Thread-safety: stateless; every command holds its key's segment lock for its whole
 * read-modify-write; GET first tries a read without it, validated against the lock's version.
 */
public final class StringCommands {
    private StringCommands() {
    }

    public static void register(CommandTable t) {
        t.register("get", StringCommands::get);
        t.register("set", StringCommands::set);
        t.register("setnx", StringCommands::setnx);
        t.register("setex", StringCommands::setex);
        t.register("psetex", StringCommands::psetex);
        t.register("getset", StringCommands::getset);
        t.register("getdel", StringCommands::getdel);
        t.register("getex", StringCommands::getex);
        MultiStringCommands.register(t);
        StringRangeCommands.register(t);
        CounterCommands.register(t);
        t.register("lcs", LcsCommand::lcs);
    }

    // GET key
    static void get(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        if (Keys.replyStringWithoutLock(s, seg, a, 1, h)) {
            return;
        }
        seg.lock();
        try {
            replyValue(s, Keys.read(s, seg, a, 1, h));
        } finally {
            seg.unlock();
        }
    }

    /** The GET reply for an entry: null, the string, or WRONGTYPE (thrown before anything is written). */
    private static void replyValue(Session s, Entry e) {
        if (e == null) {
            s.out().nullBulk();
        } else {
            Keys.replyString(s.out(), e);
        }
    }

    // Option flags of SET and GETEX (Redis's OBJ_* flags).
    static final int NX = 1;
    static final int XX = 2;
    static final int GET = 4;
    static final int KEEPTTL = 8;
    static final int EX = 16;
    static final int PX = 32;
    static final int EXAT = 64;
    static final int PXAT = 128;
    static final int PERSIST = 256;
    static final int ANY_EXPIRE = EX | PX | EXAT | PXAT;

    // SET key value [NX | XX] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]
    static void set(Session s, Args a) {
        int flags = 0;
        int expireArg = -1;
        for (int i = 3; i < a.count(); i++) {
            boolean hasNext = i + 1 < a.count();
            int unit;
            if (a.is(i, "NX") && (flags & XX) == 0) {
                flags |= NX;
            } else if (a.is(i, "XX") && (flags & NX) == 0) {
                flags |= XX;
            } else if (a.is(i, "GET")) {
                flags |= GET;
            } else if (a.is(i, "KEEPTTL") && (flags & ANY_EXPIRE) == 0) {
                flags |= KEEPTTL;
            } else if (hasNext && (unit = expireOption(a, i)) != 0 && (flags & KEEPTTL) == 0
                    && (flags & ANY_EXPIRE & ~unit) == 0) {
                // As in Redis, the same unit may repeat (the last value wins); mixing units may not.
                flags |= unit;
                expireArg = ++i;
            } else {
                throw Errors.SYNTAX;
            }
        }
        long expireAt = expireArg < 0 ? -1 : absoluteExpire(s, flags, NumberArgs.parseLong(a, expireArg), "set");
        setGeneric(s, a, flags, 2, expireAt, false);
    }

    // SETNX key value
    static void setnx(Session s, Args a) {
        setGeneric(s, a, NX, 2, -1, true);
    }

    // SETEX key seconds value
    static void setex(Session s, Args a) {
        setGeneric(s, a, EX, 3, absoluteExpire(s, EX, NumberArgs.parseLong(a, 2), "setex"), false);
    }

    // PSETEX key milliseconds value
    static void psetex(Session s, Args a) {
        setGeneric(s, a, PX, 3, absoluteExpire(s, PX, NumberArgs.parseLong(a, 2), "psetex"), false);
    }

    /**
     * Redis's setGenericCommand: stores argument {@code valueArg} under key argument 1 honouring NX,
     * XX, GET and KEEPTTL; {@code expireAt} is absolute Unix ms or -1 (then the key loses any time to
     * live unless KEEPTTL). Replies OK / null, or 1 / 0 for SETNX, or the old value with GET.
     */
    private static void setGeneric(Session s, Args a, int flags, int valueArg, long expireAt, boolean integerReply) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            if ((flags & GET) != 0) {
                replyValue(s, Keys.read(s, seg, a, 1, h)); // the old value is immutable: safe to send first
            }
            Entry e = Keys.write(s, seg, a, 1, h);
            if (((flags & NX) != 0 && e != null) || ((flags & XX) != 0 && e == null)) {
                if ((flags & GET) == 0) {
                    if (integerReply) {
                        s.out().integer(0);
                    } else {
                        s.out().nullBulk();
                    }
                }
                return;
            }
            if (e == null) {
                seg.insertString(a.buffer(), a.offset(1), a.length(1), h, a.buffer(), a.offset(valueArg), a.length(valueArg), expireAt);
            } else {
                e = seg.replaceString(e, a.buffer(), a.offset(valueArg), a.length(valueArg));
                if ((flags & KEEPTTL) == 0) {
                    seg.setExpire(e, expireAt);
                }
            }
            s.dirty(1);
            s.notify(Notifications.STRING, "set", a, 1);
            if (expireAt >= 0) {
                s.notify(Notifications.GENERIC, "expire", a, 1);
            }
            if ((flags & GET) == 0) {
                if (integerReply) {
                    s.out().integer(1);
                } else {
                    s.out().ok();
                }
            }
        } finally {
            seg.unlock();
        }
    }

    // GETSET key value
    static void getset(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            replyValue(s, e);
            if (e == null) {
                seg.insertString(a.buffer(), a.offset(1), a.length(1), h, a.buffer(), a.offset(2), a.length(2), -1);
            } else {
                e = seg.replaceString(e, a.buffer(), a.offset(2), a.length(2));
                seg.setExpire(e, -1);
            }
            s.dirty(1);
            s.notify(Notifications.STRING, "set", a, 1);
        } finally {
            seg.unlock();
        }
    }

    // GETDEL key
    static void getdel(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            replyValue(s, e);
            if (e != null) {
                seg.removeEntry(e);
                s.dirty(1);
                s.notify(Notifications.GENERIC, "del", a, 1);
                // as Redis 7.0's getdelCommand: propagated as the delete it is
                s.propagateAs(s.engine().config().lazyfreeLazyUserDel.value() ? UNLINK : DEL, a.copy(1));
            }
        } finally {
            seg.unlock();
        }
    }

    private static final byte[] DEL = "DEL".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] UNLINK = "UNLINK".getBytes(StandardCharsets.US_ASCII);

    // GETEX key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | PERSIST]
    static void getex(Session s, Args a) {
        int flags = 0;
        int expireArg = -1;
        for (int i = 2; i < a.count(); i++) {
            boolean hasNext = i + 1 < a.count();
            int unit;
            if (a.is(i, "PERSIST") && (flags & ANY_EXPIRE) == 0) {
                flags |= PERSIST;
            } else if (hasNext && (unit = expireOption(a, i)) != 0 && (flags & PERSIST) == 0
                    && (flags & ANY_EXPIRE & ~unit) == 0) {
                flags |= unit;
                expireArg = ++i;
            } else {
                throw Errors.SYNTAX;
            }
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            if (e == null) {
                s.out().nullBulk(); // a missing key answers null before the expire is validated, as in Redis
                return;
            }
            Keys.stringLength(e); // WRONGTYPE before the expire is validated
            long expireAt = expireArg < 0 ? -1 : absoluteExpire(s, flags, NumberArgs.parseLong(a, expireArg), "getex");
            Keys.replyString(s.out(), e);
            if ((flags & (EXAT | PXAT)) != 0 && s.expiresAtOnce(expireAt)) {
                seg.removeEntry(e); // an absolute time already past deletes the key
                s.dirty(1);
                s.notify(Notifications.GENERIC, "del", a, 1);
            } else if (expireArg >= 0) {
                seg.setExpire(e, expireAt);
                s.dirty(1);
                s.notify(Notifications.GENERIC, "expire", a, 1);
            } else if ((flags & PERSIST) != 0 && e.expireAt() >= 0) {
                seg.setExpire(e, -1);
                s.dirty(1);
                s.notify(Notifications.GENERIC, "persist", a, 1);
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
