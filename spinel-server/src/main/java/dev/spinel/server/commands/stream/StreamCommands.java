package dev.spinel.server.commands.stream;

import dev.spinel.protocol.Args;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Segment;
import dev.spinel.store.types.stream.StreamId;
import dev.spinel.store.types.stream.StreamValue;

import java.nio.charset.StandardCharsets;

/**
 * Stream writes and range reads (Redis's t_stream.c): XADD, XLEN, XRANGE, XREVRANGE, XDEL, XTRIM,
 * XSETID. Reads of many streams (XREAD, XREADGROUP) are in {@link StreamReadCommands}, consumer groups
 * in {@link StreamGroupCommands}. Every command holds its key's segment lock throughout; a stream
 * emptied by XDEL or XTRIM stays (Redis keeps empty streams).
 */
public final class StreamCommands {
    private static final RedisError ID_TOO_SMALL =
            new RedisError("ERR The ID specified in XADD is equal or smaller than the target stream top item");
    private static final RedisError ID_ZERO = new RedisError("ERR The ID specified in XADD must be greater than 0-0");
    private static final RedisError EXHAUSTED =
            new RedisError("ERR The stream has exhausted the last possible ID, unable to add more items");
    private static final RedisError TOO_LARGE = new RedisError("ERR Elements are too large to be stored");
    private static final byte[] EQ = {'='};

    private StreamCommands() {
    }

    public static void register(CommandTable t) {
        t.register("xadd", StreamCommands::xadd);
        t.register("xlen", StreamCommands::xlen);
        t.register("xrange", (s, a) -> xrange(s, a, false));
        t.register("xrevrange", (s, a) -> xrange(s, a, true));
        t.register("xdel", StreamCommands::xdel);
        t.register("xtrim", StreamCommands::xtrim);
        t.register("xsetid", StreamCommands::xsetid);
        StreamReadCommands.register(t);
        StreamGroupCommands.register(t);
        StreamInfoCommands.register(t);
    }

    // XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value [field value ...]
    static void xadd(Session s, Args a) {
        TrimArgs t = TrimArgs.parse(s, a, true);
        int fieldPos = t.idPos + 1;
        int nf = a.count() - fieldPos;
        if (nf < 2 || nf % 2 == 1) {
            throw Errors.wrongArgs("xadd");
        }
        if (t.idGiven && t.seqGiven && t.idMs == 0 && t.idSeq == 0) {
            throw ID_ZERO;
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            StreamValue st = Streams.write(s, seg, a, 1, h);
            if (st == null) {
                if (t.noMkStream) {
                    s.out().nullBulk();
                    return;
                }
                st = new StreamValue(s.engine().config().collectionSettings);
                seg.insert(a.copy(1), h, st, -1);
            }
            if (st.lastMs() == -1L && st.lastSeq() == -1L) {
                throw EXHAUSTED;
            }
            int[] offLen = new int[nf * 2];
            for (int i = 0; i < nf; i++) {
                offLen[2 * i] = a.offset(fieldPos + i);
                offLen[2 * i + 1] = a.length(fieldPos + i);
            }
            long before = st.memoryUsage();
            int r = st.append(t.idGiven, t.seqGiven, t.idMs, t.idSeq, s.now(), a.buffer(), offLen);
            if (r != StreamValue.APPENDED) {
                throw r == StreamValue.ID_TOO_SMALL ? ID_TOO_SMALL : TOO_LARGE;
            }
            byte[] id = StreamId.format(st.lastMs(), st.lastSeq());
            s.out().bulk(id);
            s.dirty(1);
            s.notify(Notifications.STREAM, "xadd", a, 1);
            boolean trimmedApprox = false;
            if (t.byMaxLen || t.byMinId) {
                if (st.trim(t.byMaxLen, t.maxLen, t.minMs, t.minSeq, t.approx, t.limit) > 0) {
                    s.notify(Notifications.STREAM, "xtrim", a, 1);
                }
                trimmedApprox = t.approx;
            }
            seg.adjustMemory(st.memoryUsage() - before);
            // what to log instead of the command as received (only built when something logs it)
            if ((trimmedApprox || !t.idGiven || !t.seqGiven) && s.engine().hooks().propagator() != null) {
                byte[][] argv = argv(a);
                if (trimmedApprox) {
                    rewriteTrim(argv, t, st);
                }
                argv[t.idPos] = id;
                s.propagateAs(argv);
            }
            s.engine().blocking().signal(s.db(), a.buffer(), a.offset(1), a.length(1));
        } finally {
            seg.unlock();
        }
    }

    /** Redis's streamRewriteApproxSpecifier + streamRewriteTrimArgument: logs an exact, replayable trim. */
    private static void rewriteTrim(byte[][] argv, TrimArgs t, StreamValue st) {
        argv[t.thresholdPos - 1] = EQ;
        if (t.byMaxLen) {
            argv[t.thresholdPos] = Long.toString(st.size()).getBytes(StandardCharsets.US_ASCII);
        } else {
            StreamId first = st.edgeIdWithTombstones(true);
            argv[t.thresholdPos] = first == null ? StreamId.MAX.format() : first.format();
        }
    }

    static byte[][] argv(Args a) {
        byte[][] argv = new byte[a.count()][];
        for (int i = 0; i < argv.length; i++) {
            argv[i] = a.copy(i);
        }
        return argv;
    }

    // XLEN key
    static void xlen(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            StreamValue st = Streams.read(s, seg, a, 1, h);
            s.out().integer(st == null ? 0 : st.size());
        } finally {
            seg.unlock();
        }
    }

    // XRANGE key start end [COUNT count] / XREVRANGE key end start [COUNT count]
    static void xrange(Session s, Args a, boolean rev) {
        boolean[] ex = new boolean[1];
        Streams.Id start = Streams.parseInterval(a, rev ? 3 : 2, 0, ex);
        long[] sid = {start.ms(), start.seq()};
        if (ex[0] && !Streams.incr(sid)) {
            throw new RedisError("ERR invalid start ID for the interval");
        }
        Streams.Id end = Streams.parseInterval(a, rev ? 2 : 3, -1L, ex);
        long[] eid = {end.ms(), end.seq()};
        if (ex[0] && !Streams.decr(eid)) {
            throw new RedisError("ERR invalid end ID for the interval");
        }
        long count = -1;
        for (int j = 4; j < a.count(); j++) {
            if (a.is(j, "COUNT") && j + 1 < a.count()) {
                count = parseLong(a, j + 1);
                if (count < 0) {
                    count = 0;
                }
                j++;
            } else {
                throw Errors.SYNTAX;
            }
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            StreamValue st = Streams.read(s, seg, a, 1, h);
            if (st == null) {
                s.out().array(0);
            } else if (count == 0) {
                s.out().nullArray();
            } else {
                Streams.range(s.out(), st, sid[0], sid[1], eid[0], eid[1], count < 0 ? 0 : count, rev);
            }
        } finally {
            seg.unlock();
        }
    }

    static long parseLong(Args a, int i) {
        try {
            return a.parseLong(i);
        } catch (NumberFormatException e) {
            throw Errors.NOT_INTEGER;
        }
    }

    // XDEL key id [id ...]
    static void xdel(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            StreamValue st = Streams.write(s, seg, a, 1, h);
            if (st == null) {
                s.out().integer(0);
                return;
            }
            long[] ids = new long[(a.count() - 2) * 2];
            for (int i = 2; i < a.count(); i++) {
                Streams.Id id = Streams.parseId(a, i, 0, true, false);
                ids[2 * (i - 2)] = id.ms();
                ids[2 * (i - 2) + 1] = id.seq();
            }
            long before = st.memoryUsage();
            int deleted = 0;
            boolean first = false;
            for (int i = 0; i < ids.length; i += 2) {
                if (st.delete(ids[i], ids[i + 1])) {
                    if (ids[i] == st.firstMs() && ids[i + 1] == st.firstSeq()) {
                        first = true;
                    }
                    if (StreamId.compare(ids[i], ids[i + 1], st.maxDeletedMs(), st.maxDeletedSeq()) > 0) {
                        st.setMaxDeleted(ids[i], ids[i + 1]);
                    }
                    deleted++;
                }
            }
            if (deleted > 0) {
                if (st.size() == 0 || first) {
                    st.refreshFirstId();
                }
                seg.adjustMemory(st.memoryUsage() - before);
                s.dirty(deleted);
                s.notify(Notifications.STREAM, "xdel", a, 1);
            }
            s.out().integer(deleted);
        } finally {
            seg.unlock();
        }
    }

    // XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]
    static void xtrim(Session s, Args a) {
        TrimArgs t = TrimArgs.parse(s, a, false);
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            StreamValue st = Streams.write(s, seg, a, 1, h);
            if (st == null) {
                s.out().integer(0);
                return;
            }
            long before = st.memoryUsage();
            long deleted = st.trim(t.byMaxLen, t.maxLen, t.minMs, t.minSeq, t.approx, t.limit);
            if (deleted > 0) {
                seg.adjustMemory(st.memoryUsage() - before);
                s.notify(Notifications.STREAM, "xtrim", a, 1);
                if (t.approx && s.engine().hooks().propagator() != null) {
                    byte[][] argv = argv(a);
                    rewriteTrim(argv, t, st);
                    s.propagateAs(argv);
                }
                s.dirty(deleted);
            }
            s.out().integer(deleted);
        } finally {
            seg.unlock();
        }
    }

    // XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
    static void xsetid(Session s, Args a) {
        Streams.Id id = Streams.parseId(a, 2, 0, true, false);
        long entriesAdded = -1;
        long mdMs = 0;
        long mdSeq = 0;
        for (int i = 3; i < a.count(); i += 2) {
            boolean more = i + 1 < a.count();
            if (a.is(i, "ENTRIESADDED") && more) {
                entriesAdded = parseLong(a, i + 1);
                if (entriesAdded < 0) {
                    throw new RedisError("ERR entries_added must be positive");
                }
            } else if (a.is(i, "MAXDELETEDID") && more) {
                Streams.Id md = Streams.parseId(a, i + 1, 0, true, false);
                if (StreamId.compare(id.ms(), id.seq(), md.ms(), md.seq()) < 0) {
                    throw new RedisError("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
                }
                mdMs = md.ms();
                mdSeq = md.seq();
            } else {
                throw Errors.SYNTAX;
            }
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            StreamValue st = Streams.write(s, seg, a, 1, h);
            if (st == null) {
                throw Errors.NO_SUCH_KEY;
            }
            if (st.size() > 0) {
                var c = st.cursor(0, 0, -1L, -1L, true);
                c.next();
                if (StreamId.compare(id.ms(), id.seq(), c.ms(), c.seq()) < 0) {
                    throw new RedisError("ERR The ID specified in XSETID is smaller than the target stream top item");
                }
                if (entriesAdded != -1 && st.size() > entriesAdded) {
                    throw new RedisError("ERR The entries_added specified in XSETID is smaller than the target stream length");
                }
            }
            // Redis 7.0.15 does not compare the new last ID with the stream's max_deleted_entry_id.
            st.setLastId(id.ms(), id.seq());
            if (entriesAdded != -1) {
                st.setEntriesAdded(entriesAdded);
            }
            if (mdMs != 0 || mdSeq != 0) {
                st.setMaxDeleted(mdMs, mdSeq);
            }
            s.dirtyQuietly(1); // Redis 7.0.15 does not signal the key here: WATCH survives
            s.notify(Notifications.STREAM, "xsetid", a, 1);
            s.out().ok();
        } finally {
            seg.unlock();
        }
    }
}
