package dev.spinel.server.commands.key;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.stats.LazyFree;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;

/**
 * Time-to-live commands (Redis's expire.c): EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT (one generic
 * {@link #expire}), TTL, PTTL, EXPIRETIME, PEXPIRETIME (one generic {@link #ttl}), and PERSIST.
 * Expiry times are absolute Unix milliseconds; -1 means no time to live.
 *
 * <p>Thread-safety: stateless; each command holds its key's stripe lock for its whole run.
 */
final class ExpireCommands {
    private static final RedisError NX_AND_OTHERS =
            new RedisError("ERR NX and XX, GT or LT options at the same time are not compatible");
    private static final RedisError GT_AND_LT =
            new RedisError("ERR GT and LT options at the same time are not compatible");

    private static final int NX = 1;
    private static final int XX = 2;
    private static final int GT = 4;
    private static final int LT = 8;

    private ExpireCommands() {
    }

    static void register(CommandTable t) {
        t.register("expire", (s, a) -> expire(s, a, s.now(), true, "expire"));
        t.register("pexpire", (s, a) -> expire(s, a, s.now(), false, "pexpire"));
        t.register("expireat", (s, a) -> expire(s, a, 0, true, "expireat"));
        t.register("pexpireat", (s, a) -> expire(s, a, 0, false, "pexpireat"));
        t.register("ttl", (s, a) -> ttl(s, a, false, false));
        t.register("pttl", (s, a) -> ttl(s, a, true, false));
        t.register("expiretime", (s, a) -> ttl(s, a, false, true));
        t.register("pexpiretime", (s, a) -> ttl(s, a, true, true));
        t.register("persist", ExpireCommands::persist);
    }

    // EXPIRE key seconds [NX | XX | GT | LT]   (and PEXPIRE, EXPIREAT, PEXPIREAT)
    static void expire(Session s, Args a, long base, boolean seconds, String command) {
        int flags = 0;
        for (int i = 3; i < a.count(); i++) {
            if (a.is(i, "NX")) {
                flags |= NX;
            } else if (a.is(i, "XX")) {
                flags |= XX;
            } else if (a.is(i, "GT")) {
                flags |= GT;
            } else if (a.is(i, "LT")) {
                flags |= LT;
            } else {
                throw new RedisError("ERR Unsupported option " + a.cString(i));
            }
        }
        if ((flags & NX) != 0 && (flags & (XX | GT | LT)) != 0) {
            throw NX_AND_OTHERS;
        }
        if ((flags & (GT | LT)) == (GT | LT)) {
            throw GT_AND_LT;
        }
        long when;
        try {
            when = a.parseLong(2);
        } catch (NumberFormatException e) {
            throw Errors.NOT_INTEGER;
        }
        // Negative values are allowed (they delete the key); only overflow is an error.
        if (seconds) {
            if (when > Long.MAX_VALUE / 1000 || when < Long.MIN_VALUE / 1000) {
                throw Errors.invalidExpire(command);
            }
            when *= 1000;
        }
        if (when > Long.MAX_VALUE - base) {
            throw Errors.invalidExpire(command);
        }
        when += base;

        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            if (e == null || !accepts(flags, e.expireAt(), when)) {
                s.out().integer(0);
                return;
            }
            if (s.expiresAtOnce(when)) {
                seg.removeEntry(e); // a time in the past deletes the key at once (a write, not an expiry)
                if (s.engine().config().lazyfreeLazyExpire.value()) {
                    LazyFree.freed(s.engine().stats(), e.value()); // Redis: deleted asynchronously under lazy-expire
                }
                s.notify(Notifications.GENERIC, "del", a, 1);
            } else {
                seg.setExpire(e, when);
                s.notify(Notifications.GENERIC, "expire", a, 1);
            }
            s.dirty(1);
            s.out().integer(1);
        } finally {
            seg.unlock();
        }
    }

    /** Redis's NX/XX/GT/LT conditions; a key without a time to live counts as an infinite one. */
    private static boolean accepts(int flags, long current, long when) {
        if ((flags & NX) != 0 && current != -1) {
            return false;
        }
        if ((flags & XX) != 0 && current == -1) {
            return false;
        }
        if ((flags & GT) != 0 && (current == -1 || when <= current)) {
            return false;
        }
        return (flags & LT) == 0 || current == -1 || when < current;
    }

    // TTL key  (and PTTL, EXPIRETIME, PEXPIRETIME)
    static void ttl(Session s, Args a, boolean millis, boolean absolute) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        long expireAt;
        seg.lock();
        try {
            Entry e = KeyCommands.peek(s, seg, a, 1, h);
            if (e == null) {
                s.out().integer(-2);
                return;
            }
            expireAt = e.expireAt();
        } finally {
            seg.unlock();
        }
        if (expireAt == -1) {
            s.out().integer(-1);
            return;
        }
        long t = Math.max(0, absolute ? expireAt : expireAt - s.now());
        // Redis rounds with (ttl+500)/1000 on a non-negative ttl, which its compiler divides unsigned: an
        // expiry within 500 ms of Long.MAX_VALUE reads 9223372036854776, not a wrapped negative number.
        s.out().integer(millis ? t : Long.divideUnsigned(t + 500, 1000));
    }

    // PERSIST key
    static void persist(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            if (e == null || e.expireAt() == -1) {
                s.out().integer(0);
                return;
            }
            seg.setExpire(e, -1);
            s.dirty(1);
            s.notify(Notifications.GENERIC, "persist", a, 1);
            s.out().integer(1);
        } finally {
            seg.unlock();
        }
    }
}
