package dev.spinel.server.commands.list;

import java.util.Arrays;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.common.BulkWriter;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.commands.key.SortCommand;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.types.ElementVisitor;
import dev.spinel.store.types.ListValue;

/**
 * List commands (Redis's t_list.c) that work on one key: pushes, pops, ranges, indexes, LPOS.
 * Two-key and blocking commands are in {@link ListMoveCommands} and {@link ListBlockingCommands}.
 * Every command holds its key's segment lock for its whole read-modify-write.
 */
public final class ListCommands {
    private static final RedisError RANK_ZERO = new RedisError("ERR RANK can't be zero: use 1 to start from the first "
            + "match, 2 from the second ... or use negative to start from the end of the list");
    private static final RedisError COUNT_NEGATIVE = new RedisError("ERR COUNT can't be negative");
    private static final RedisError MAXLEN_NEGATIVE = new RedisError("ERR MAXLEN can't be negative");
    private static final RedisError INDEX_OUT_OF_RANGE = new RedisError("ERR index out of range");

    private ListCommands() {
    }

    public static void register(CommandTable t) {
        t.register("lpush", (s, a) -> push(s, a, true, false));
        t.register("rpush", (s, a) -> push(s, a, false, false));
        t.register("lpushx", (s, a) -> push(s, a, true, true));
        t.register("rpushx", (s, a) -> push(s, a, false, true));
        t.register("lpop", (s, a) -> pop(s, a, true));
        t.register("rpop", (s, a) -> pop(s, a, false));
        t.register("llen", ListCommands::llen);
        t.register("lrange", ListCommands::lrange);
        t.register("lindex", ListCommands::lindex);
        t.register("lset", ListCommands::lset);
        t.register("linsert", ListCommands::linsert);
        t.register("lrem", ListCommands::lrem);
        t.register("ltrim", ListCommands::ltrim);
        t.register("lpos", ListCommands::lpos);
        ListMoveCommands.register(t);
        ListBlockingCommands.register(t);
        SortCommand.register(t);
    }

    // LPUSH key element [element ...] / RPUSH ... / LPUSHX ... / RPUSHX ...
    static void push(Session s, Args a, boolean head, boolean onlyIfExists) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            ListValue l;
            if (e == null) {
                if (onlyIfExists) {
                    s.out().integer(0);
                    return;
                }
                l = Lists.create(s, seg, a, 1, h);
            } else {
                l = Lists.list(e);
            }
            long before = l.memoryUsage();
            for (int i = 2; i < a.count(); i++) {
                l.push(head, a.buffer(), a.offset(i), a.length(i));
            }
            seg.adjustMemory(l.memoryUsage() - before);
            s.dirty(a.count() - 2);
            s.notify(Notifications.LIST, head ? "lpush" : "rpush", a, 1);
            Lists.signal(s, a, 1);
            s.out().integer(l.length());
        } finally {
            seg.unlock();
        }
    }

    // LPOP key [count] / RPOP key [count]
    static void pop(Session s, Args a, boolean head) {
        if (a.count() > 3) {
            throw Errors.wrongArgs(head ? "lpop" : "rpop");
        }
        long count = -1;
        if (a.count() == 3) {
            count = NumberArgs.parseLongOr(a, 2, Lists.NOT_POSITIVE);
            if (count < 0) {
                throw Lists.NOT_POSITIVE;
            }
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            if (e == null) {
                if (count >= 0) {
                    s.out().nullArray();
                } else {
                    s.out().nullBulk();
                }
                return;
            }
            ListValue l = Lists.list(e);
            if (count == 0) {
                s.out().array(0);
                return;
            }
            long before = l.memoryUsage();
            if (count < 0) {
                s.out().bulk(l.pop(head));
            } else {
                Lists.popInto(s, l, head, count);
            }
            seg.adjustMemory(l.memoryUsage() - before);
            s.dirty(1);
            s.notify(Notifications.LIST, head ? "lpop" : "rpop", a, 1);
            Lists.deleteIfEmpty(seg, e, l);
            Lists.notifyIfDeleted(s, a, 1, l);
        } finally {
            seg.unlock();
        }
    }

    // LLEN key
    static void llen(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            s.out().integer(e == null ? 0 : Lists.list(e).length());
        } finally {
            seg.unlock();
        }
    }

    // LRANGE key start stop
    static void lrange(Session s, Args a) {
        long start = NumberArgs.parseLong(a, 2);
        long end = NumberArgs.parseLong(a, 3);
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            if (e == null) {
                s.out().array(0);
                return;
            }
            ListValue l = Lists.list(e);
            long len = l.length();
            if (start < 0) {
                start += len;
            }
            if (end < 0) {
                end += len;
            }
            if (start < 0) {
                start = 0;
            }
            if (start > end || start >= len) {
                s.out().array(0);
                return;
            }
            if (end >= len) {
                end = len - 1;
            }
            ReplyBuffer out = s.out();
            out.array((int) (end - start + 1));
            l.forEach((int) start, (int) end, false, BulkWriter.of(out, false, true));
        } finally {
            seg.unlock();
        }
    }

    // LINDEX key index
    static void lindex(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            if (e == null) {
                s.out().nullBulk();
                return;
            }
            ListValue l = Lists.list(e);
            long index = NumberArgs.parseLong(a, 2); // after the key lookup and type check, as in Redis
            if (index < 0) {
                index += l.length();
            }
            if (index < 0 || index >= l.length()) {
                s.out().nullBulk();
            } else {
                s.out().bulk(l.get((int) index));
            }
        } finally {
            seg.unlock();
        }
    }

    // LSET key index element
    static void lset(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            if (e == null) {
                throw Errors.NO_SUCH_KEY;
            }
            ListValue l = Lists.list(e);
            long index = NumberArgs.parseLong(a, 2);
            if (index < 0) {
                index += l.length();
            }
            if (index < 0 || index >= l.length()) {
                throw INDEX_OUT_OF_RANGE;
            }
            long before = l.memoryUsage();
            l.set((int) index, a.buffer(), a.offset(3), a.length(3));
            seg.adjustMemory(l.memoryUsage() - before);
            s.dirty(1);
            s.notify(Notifications.LIST, "lset", a, 1);
            s.out().ok();
        } finally {
            seg.unlock();
        }
    }

    // LINSERT key BEFORE|AFTER pivot element
    static void linsert(Session s, Args a) {
        boolean after;
        if (a.is(2, "AFTER")) {
            after = true;
        } else if (a.is(2, "BEFORE")) {
            after = false;
        } else {
            throw Errors.SYNTAX;
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            if (e == null) {
                s.out().integer(0);
                return;
            }
            ListValue l = Lists.list(e);
            int i = l.indexOf(a.buffer(), a.offset(3), a.length(3));
            if (i < 0) {
                s.out().integer(-1);
                return;
            }
            long before = l.memoryUsage();
            l.insert(after ? i + 1 : i, a.buffer(), a.offset(4), a.length(4));
            seg.adjustMemory(l.memoryUsage() - before);
            s.dirty(1);
            s.notify(Notifications.LIST, "linsert", a, 1);
            s.out().integer(l.length());
        } finally {
            seg.unlock();
        }
    }

    // LREM key count element
    static void lrem(Session s, Args a) {
        long count = NumberArgs.parseLong(a, 2);
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            if (e == null) {
                s.out().integer(0);
                return;
            }
            ListValue l = Lists.list(e);
            long limit = count == Long.MIN_VALUE ? Long.MAX_VALUE : Math.abs(count);
            long before = l.memoryUsage();
            long removed = l.removeMatching(a.buffer(), a.offset(3), a.length(3), limit, count < 0);
            seg.adjustMemory(l.memoryUsage() - before);
            if (removed > 0) {
                s.dirty(removed);
                s.notify(Notifications.LIST, "lrem", a, 1);
                Lists.deleteIfEmpty(seg, e, l);
                Lists.notifyIfDeleted(s, a, 1, l);
            }
            s.out().integer(removed);
        } finally {
            seg.unlock();
        }
    }

    // LTRIM key start stop
    static void ltrim(Session s, Args a) {
        long start = NumberArgs.parseLong(a, 2);
        long end = NumberArgs.parseLong(a, 3);
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            if (e == null) {
                s.out().ok();
                return;
            }
            ListValue l = Lists.list(e);
            long len = l.length();
            if (start < 0) {
                start += len;
            }
            if (end < 0) {
                end += len;
            }
            if (start < 0) {
                start = 0;
            }
            long before = l.memoryUsage();
            if (start > end || start >= len) {
                l.trim(1, 0);
            } else {
                l.trim((int) start, (int) Math.min(end, len - 1));
            }
            seg.adjustMemory(l.memoryUsage() - before);
            s.dirty(1);
            s.notify(Notifications.LIST, "ltrim", a, 1);
            Lists.deleteIfEmpty(seg, e, l);
            Lists.notifyIfDeleted(s, a, 1, l);
            s.out().ok();
        } finally {
            seg.unlock();
        }
    }

    /** One pass of LPOS over the scanned range, collecting match positions. */
    private static final class LposScan implements ElementVisitor {
        final Args a;
        final boolean fromTail;
        final int len;
        final long rank;
        final long count;
        final long[] found;
        int nfound;
        long matches;
        int k;

        LposScan(Args a, boolean fromTail, int len, long rank, long count) {
            this.a = a;
            this.fromTail = fromTail;
            this.len = len;
            this.rank = rank;
            this.count = count;
            this.found = new long[(int) Math.min(count <= 0 ? len : count, len) + 1];
        }

        @Override
        public boolean visit(byte[] buf, int off, int n) {
            int index = fromTail ? len - 1 - k : k;
            k++;
            if (n == a.length(2) && Arrays.equals(buf, off, off + n, a.buffer(), a.offset(2), a.offset(2) + n)) {
                matches++;
                if (matches >= rank) { // a rank of LLONG_MIN stays negative and matches at once, as in Redis
                    found[nfound++] = index;
                    return count != -1 && (count == 0 || nfound < count);
                }
            }
            return true;
        }
    }

    // LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
    static void lpos(Session s, Args a) {
        long rank = 1;
        long count = -1;
        long maxlen = 0;
        for (int j = 3; j < a.count(); j++) {
            boolean more = j + 1 < a.count();
            if (a.is(j, "RANK") && more) {
                rank = NumberArgs.parseLong(a, ++j);
                if (rank == 0) {
                    throw RANK_ZERO;
                }
            } else if (a.is(j, "COUNT") && more) {
                count = NumberArgs.parseLongOr(a, ++j, COUNT_NEGATIVE);
                if (count < 0) {
                    throw COUNT_NEGATIVE;
                }
            } else if (a.is(j, "MAXLEN") && more) {
                maxlen = NumberArgs.parseLongOr(a, ++j, MAXLEN_NEGATIVE);
                if (maxlen < 0) {
                    throw MAXLEN_NEGATIVE;
                }
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
                if (count == -1) {
                    s.out().nullBulk();
                } else {
                    s.out().array(0);
                }
                return;
            }
            ListValue l = Lists.list(e);
            boolean fromTail = rank < 0;
            long r = fromTail ? -rank : rank; // LLONG_MIN stays negative, as in Redis
            int len = l.length();
            long limit = maxlen == 0 ? len : Math.min(maxlen, len);
            LposScan scan = new LposScan(a, fromTail, len, r, count);
            if (limit > 0) {
                l.forEach(fromTail ? (int) (len - limit) : 0, fromTail ? len - 1 : (int) limit - 1, fromTail, scan);
            }
            long[] found = scan.found;
            int nfound = scan.nfound;
            if (count == -1) {
                if (nfound == 0) {
                    s.out().nullBulk();
                } else {
                    s.out().integer(found[0]);
                }
            } else {
                s.out().array(nfound);
                for (int i = 0; i < nfound; i++) {
                    s.out().integer(found[i]);
                }
            }
        } finally {
            seg.unlock();
        }
    }
}
