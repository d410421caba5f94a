package dev.spinel.server.commands.set;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.common.DistinctPicks;
import dev.spinel.server.commands.common.MemberScan;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.commands.key.SetKeys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.types.SetLimits;
import dev.spinel.store.types.SetValue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Set commands on one key (Redis's t_set.c): SADD, SREM, SISMEMBER, SMISMEMBER, SCARD, SPOP, SRANDMEMBER,
 * SMOVE, SSCAN. The multi-key algebra (SINTER, SUNION, SDIFF and their STORE forms, SMEMBERS) is in
 * {@link SetAlgebraCommands}. Each command holds its key's stripe lock for its whole run.
 */
public final class SetCommands {

    private SetCommands() {
    }

    public static void register(CommandTable t, SetLimits limits) {
        t.register("sadd", (s, a) -> sadd(s, a, limits));
        t.register("srem", SetCommands::srem);
        t.register("sismember", SetCommands::sismember);
        t.register("smismember", SetCommands::smismember);
        t.register("scard", SetCommands::scard);
        t.register("spop", (s, a) -> spop(s, a, limits));
        t.register("srandmember", SetCommands::srandmember);
        t.register("smove", (s, a) -> smove(s, a, limits));
        t.register("sscan", SetCommands::sscan);
        SetAlgebraCommands.register(t, limits);
    }

    // SADD key member [member ...]
    static void sadd(Session s, Args a, SetLimits limits) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            SetValue set = SetKeys.set(e);
            if (set == null) {
                set = SetValue.createFor(a.buffer(), a.offset(2), a.length(2));
                e = seg.insert(a.copy(1), h, set, -1);
            }
            long before = set.memoryUsage();
            int added = 0;
            for (int i = 2; i < a.count(); i++) {
                if (set.add(a.buffer(), a.offset(i), a.length(i), limits)) {
                    added++;
                }
            }
            seg.adjustMemory(set.memoryUsage() - before);
            s.dirty(added);
            if (added > 0) {
                s.notify(Notifications.SET, "sadd", a, 1);
            }
            s.out().integer(added);
        } finally {
            seg.unlock();
        }
    }

    // SREM key member [member ...]
    static void srem(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            SetValue set = SetKeys.set(e);
            int removed = 0;
            if (set != null) {
                long before = set.memoryUsage();
                for (int i = 2; i < a.count() && set.size() > 0; i++) {
                    if (set.remove(a.buffer(), a.offset(i), a.length(i))) {
                        removed++;
                    }
                }
                SetKeys.afterChange(seg, e, set, before);
            }
            s.dirty(removed);
            if (removed > 0) {
                s.notify(Notifications.SET, "srem", a, 1);
                if (set.size() == 0) {
                    s.notify(Notifications.GENERIC, "del", a, 1);
                }
            }
            s.out().integer(removed);
        } finally {
            seg.unlock();
        }
    }

    // SISMEMBER key member
    static void sismember(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            SetValue set = SetKeys.set(Keys.read(s, seg, a, 1, h));
            s.out().integer(set != null && set.contains(a.buffer(), a.offset(2), a.length(2)) ? 1 : 0);
        } finally {
            seg.unlock();
        }
    }

    // SMISMEMBER key member [member ...]
    static void smismember(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            SetValue set = SetKeys.set(Keys.read(s, seg, a, 1, h));
            ReplyBuffer out = s.out();
            out.array(a.count() - 2);
            for (int i = 2; i < a.count(); i++) {
                out.integer(set != null && set.contains(a.buffer(), a.offset(i), a.length(i)) ? 1 : 0);
            }
        } finally {
            seg.unlock();
        }
    }

    // SCARD key
    static void scard(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            SetValue set = SetKeys.set(Keys.read(s, seg, a, 1, h));
            s.out().integer(set == null ? 0 : set.size());
        } finally {
            seg.unlock();
        }
    }

    private static final byte[] SREM = "SREM".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DEL = "DEL".getBytes(StandardCharsets.US_ASCII);

    /** Redis's SPOP_MOVE_STRATEGY_MUL: with count, case 3 (build the rest anew) once the rest times this <= count. */
    private static final long SPOP_MOVE_STRATEGY_MUL = 5;

    // SPOP key [count]
    static void spop(Session s, Args a, SetLimits limits) {
        if (a.count() > 3) {
            throw Errors.SYNTAX;
        }
        long count = -1;
        if (a.count() == 3) {
            try {
                count = a.parseLong(2);
            } catch (NumberFormatException e) {
                throw Errors.NOT_POSITIVE; // getPositiveLongFromObjectOrReply: one message for both
            }
            if (count < 0) {
                throw Errors.NOT_POSITIVE;
            }
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            SetValue set = SetKeys.set(e);
            ReplyBuffer out = s.out();
            if (set == null || count == 0) {
                if (count < 0) {
                    out.nullBulk();
                } else {
                    out.set(0);
                }
                return;
            }
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            long before = set.memoryUsage();
            long n = count < 0 ? 1 : Math.min(count, set.size());
            if (count >= 0) {
                out.set((int) n);
            }
            byte[][] srem = new byte[count >= set.size() ? 2 : (int) n + 2][]; // logged as SREM of the members popped (Redis 7.0)
            srem[0] = SREM;
            srem[1] = a.copy(1);
            if (count >= set.size()) {
                // Redis's spopWithCountCommand, case 1: the whole set, replied as SUNION replies it (from a new
                // set built of its members: an intset, in numeric order, when they all fit one), and the key goes.
                SetValue whole = SetValue.createIntset();
                for (int p = set.first(); p >= 0; p = set.next(p)) {
                    whole.add(set.member(p), limits);
                }
                for (int p = whole.first(); p >= 0; p = whole.next(p)) {
                    replyMember(out, whole, p);
                }
                s.dirty(n);
                s.propagateAs(DEL, srem[1]); // Redis's case 1 propagates a DEL of the key, not an SREM
                seg.removeEntry(e);
                Keys.serverDeleted(s, whole); // Redis frees its SUNION's temporary set
                Keys.serverDeleted(s, set); // and the deleted key's set, lazily under lazyfree-lazy-server-del
                s.notify(Notifications.SET, "spop", a, 1);
                s.notify(Notifications.GENERIC, "del", a, 1);
                return;
            }
            if (count >= 0 && (set.size() - n) * SPOP_MOVE_STRATEGY_MUL <= n && !set.isIntset()) {
                // Redis's case 3 moves the members that stay to a new set and frees the old one, holding the n
                // popped members, as an overwritten value (lazily under lazyfree-lazy-server-del)
                Keys.serverDeletedEffort(s, n);
            }
            for (long k = 0; k < n; k++) {
                int pos = set.randomPosition(rnd);
                replyMember(out, set, pos);
                srem[(int) k + 2] = set.member(pos).clone();
                set.removeAt(pos);
            }
            s.dirty(n);
            s.propagateAs(srem);
            SetKeys.afterChange(seg, e, set, before);
            s.notify(Notifications.SET, "spop", a, 1);
            if (set.size() == 0) {
                s.notify(Notifications.GENERIC, "del", a, 1);
            }
        } finally {
            seg.unlock();
        }
    }

    // SRANDMEMBER key [count]
    static void srandmember(Session s, Args a) {
        if (a.count() > 3) {
            throw Errors.SYNTAX;
        }
        long count = 0;
        boolean withCount = a.count() == 3;
        if (withCount) {
            count = NumberArgs.parseLong(a, 2);
            if (count == Long.MIN_VALUE) {
                throw new RedisError(
                        "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
            }
            if (count < -NumberArgs.MAX_REPLY_ELEMENTS) {
                // Redis would try to build the reply and run out of memory; refuse with a clear error instead
                throw new RedisError("ERR value is out of range");
            }
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            SetValue set = SetKeys.set(Keys.read(s, seg, a, 1, h));
            ReplyBuffer out = s.out();
            if (!withCount) {
                if (set == null) {
                    out.nullBulk();
                } else {
                    replyMember(out, set, set.randomPosition(ThreadLocalRandom.current()));
                }
                return;
            }
            if (set == null || count == 0) {
                out.array(0);
                return;
            }
            randomMembers(set, count, out);
        } finally {
            seg.unlock();
        }
    }

    /** SRANDMEMBER with a count: negative allows repeats; positive gives distinct members. */
    private static void randomMembers(SetValue set, long count, ReplyBuffer out) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        long size = set.size();
        if (count < 0) {
            long n = -count;
            out.array((int) n);
            for (long k = 0; k < n; k++) {
                replyMember(out, set, set.randomPosition(rnd));
            }
            return;
        }
        if (count >= size) {
            out.array((int) size);
            for (int p = set.first(); p >= 0; p = set.next(p)) {
                replyMember(out, set, p);
            }
            return;
        }
        if (count * 3 <= size) {
            // few against many: random picks, duplicates rejected (O(count))
            DistinctPicks seen = new DistinctPicks(count);
            out.array((int) count);
            for (long got = 0; got < count; ) {
                int p = set.randomPosition(rnd);
                if (seen.add(p)) {
                    replyMember(out, set, p);
                    got++;
                }
            }
            return;
        }
        // many against the size: a reservoir sample over one iteration, then shuffled
        int[] chosen = new int[(int) count];
        int seen = 0;
        for (int p = set.first(); p >= 0; p = set.next(p), seen++) {
            if (seen < count) {
                chosen[seen] = p;
            } else {
                int j = rnd.nextInt(seen + 1);
                if (j < count) {
                    chosen[j] = p;
                }
            }
        }
        for (int i = chosen.length - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = chosen[i];
            chosen[i] = chosen[j];
            chosen[j] = t;
        }
        out.array(chosen.length);
        for (int p : chosen) {
            replyMember(out, set, p);
        }
    }

    /** Writes the member at an iterator position; intset members are written as numbers, no allocation. */
    static void replyMember(ReplyBuffer out, SetValue set, int pos) {
        if (set.isIntset()) {
            out.bulk(set.intAt(pos));
        } else {
            out.bulk(set.member(pos));
        }
    }

    // SMOVE source destination member
    static void smove(Session s, Args a, SetLimits limits) {
        try {
            SetKeys.lockKeys(s, a, 1, 3, -1);
            Entry src = SetKeys.write(s, a, 1);
            Entry dst = SetKeys.write(s, a, 2);
            if (src == null) {
                s.out().integer(0);
                return;
            }
            SetValue from = SetKeys.set(src);
            SetValue to = SetKeys.set(dst);
            byte[] buf = a.buffer();
            int off = a.offset(3);
            int len = a.length(3);
            if (from == to) {
                s.out().integer(from.contains(buf, off, len) ? 1 : 0);
                return;
            }
            Segment srcSeg = s.db().segment(Keys.hash(a, 1));
            long before = from.memoryUsage();
            if (!from.remove(buf, off, len)) {
                s.out().integer(0);
                return;
            }
            SetKeys.afterChange(srcSeg, src, from, before);
            s.notify(Notifications.SET, "srem", a, 1);
            if (from.size() == 0) {
                s.notify(Notifications.GENERIC, "del", a, 1);
            }
            Segment dstSeg = s.db().segment(Keys.hash(a, 2));
            if (to == null) {
                to = SetValue.createFor(buf, off, len);
                dst = dstSeg.insert(a.copy(2), Keys.hash(a, 2), to, -1);
            }
            long beforeDst = to.memoryUsage();
            boolean added = to.add(buf, off, len, limits);
            if (added) {
                s.notify(Notifications.SET, "sadd", a, 2);
            } else {
                s.keyUnchanged(2); // Redis signals the destination only when the member was added to it
            }
            dstSeg.adjustMemory(to.memoryUsage() - beforeDst);
            s.dirty(added ? 2 : 1);
            s.out().integer(1);
        } finally {
            s.locks().unlock();
        }
    }

    // SSCAN key cursor [MATCH pattern] [COUNT count]
    static void sscan(Session s, Args a) {
        MemberScan opt = MemberScan.cursor(a, 2);
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            SetValue set = SetKeys.set(Keys.read(s, seg, a, 1, h));
            ReplyBuffer out = s.out();
            if (set == null) {
                MemberScan.emptyReply(out);
                return;
            }
            opt.options(a, 2);
            MemberScan.Collector c = new MemberScan.Collector(opt, a);
            long next = set.scan(opt.cursor, opt.count, c::add);
            c.reply(out, next, false);
        } finally {
            seg.unlock();
        }
    }
}
