package dev.spinel.server.commands.stream;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Segment;
import dev.spinel.store.types.stream.StreamConsumer;
import dev.spinel.store.types.stream.StreamCursor;
import dev.spinel.store.types.stream.StreamGroup;
import dev.spinel.store.types.stream.StreamId;
import dev.spinel.store.types.stream.StreamNack;
import dev.spinel.store.types.stream.StreamValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Claiming pending entries: XCLAIM and XAUTOCLAIM (Redis 7.0's t_stream.c); XPENDING is in
 * {@link StreamPendingCommands}. A claim is logged as one XCLAIM ... FORCE JUSTID LASTID per entry claimed (or dropped
 * because the entry is gone), as Redis propagates it, never as itself. Each command holds its key's
 * segment lock throughout. Stateless.
 */
final class StreamClaimCommands {
    private StreamClaimCommands() {
    }

    static void register(CommandTable t) {
        t.register("xpending", StreamPendingCommands::xpending);
        t.register("xclaim", StreamClaimCommands::xclaim);
        t.register("xautoclaim", StreamClaimCommands::xautoclaim);
    }

    static RedisError noGroup(Args a, int key, int group) {
        return new RedisError("NOGROUP No such key '" + a.cString(key) + "' or consumer group '" + a.cString(group) + "'");
    }

    private static long parseLong(Args a, int i, String error) {
        try {
            return a.parseLong(i);
        } catch (NumberFormatException e) {
            throw new RedisError("ERR " + error);
        }
    }

    // XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-ms] [RETRYCOUNT count]
    //        [FORCE] [JUSTID] [LASTID id]
    static void xclaim(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            StreamValue st = Streams.read(s, seg, a, 1, h);
            StreamGroup g = st == null || st.groupCount() == 0 ? null : st.groups().get(a.copy(2));
            if (g == null) {
                throw noGroup(a, 1, 2);
            }
            long minIdle = Math.max(0, parseLong(a, 4, "Invalid min-idle-time argument for XCLAIM"));
            int j = 5;
            List<StreamId> ids = new ArrayList<>();
            for (; j < a.count(); j++) {
                try {
                    Streams.Id id = Streams.parseId(a, j, 0, true, false);
                    ids.add(new StreamId(id.ms(), id.seq()));
                } catch (RedisError e) {
                    break;
                }
            }
            long now = s.now();
            long retryCount = -1;
            long deliveryTime = -1;
            boolean force = false;
            boolean justId = false;
            long lastMs = 0;
            long lastSeq = 0;
            for (; j < a.count(); j++) {
                boolean more = j + 1 < a.count();
                if (a.is(j, "FORCE")) {
                    force = true;
                } else if (a.is(j, "JUSTID")) {
                    justId = true;
                } else if (a.is(j, "IDLE") && more) {
                    deliveryTime = now - parseLong(a, ++j, "Invalid IDLE option argument for XCLAIM");
                } else if (a.is(j, "TIME") && more) {
                    deliveryTime = parseLong(a, ++j, "Invalid TIME option argument for XCLAIM");
                } else if (a.is(j, "RETRYCOUNT") && more) {
                    retryCount = parseLong(a, ++j, "Invalid RETRYCOUNT option argument for XCLAIM");
                } else if (a.is(j, "LASTID") && more) {
                    Streams.Id id = Streams.parseId(a, ++j, 0, true, false);
                    lastMs = id.ms();
                    lastSeq = id.seq();
                } else {
                    throw new RedisError("ERR Unrecognized XCLAIM option '" + a.cString(j) + "'");
                }
            }
            boolean propagateLastId = false;
            if (StreamId.compare(lastMs, lastSeq, g.lastMs, g.lastSeq) > 0) {
                g.lastMs = lastMs;
                g.lastSeq = lastSeq;
                propagateLastId = true;
            }
            if (deliveryTime != -1) {
                if (deliveryTime < 0 || deliveryTime > now) {
                    deliveryTime = now; // a client's clock a bit ahead is no reason to fail
                }
            } else {
                deliveryTime = now;
            }
            long before = st.memoryUsage();
            byte[] key = a.copy(1);
            byte[] groupName = a.copy(2);
            byte[] name = a.copy(3);
            StreamConsumer consumer = null;
            ReplyBuffer body = scratchReply(s);
            int n = 0;
            byte[] scratch = new byte[24];
            for (StreamId id : ids) {
                StreamNack nack = g.pending.get(id);
                if (!st.contains(id.ms(), id.seq())) {
                    if (nack != null) { // the entry is gone: drop it from the PELs, and log that
                        s.propagateAs(StreamGroups.xclaim(key, groupName, g, id, nack));
                        propagateLastId = false;
                        s.dirtyQuietly(1);
                        g.pending.remove(id);
                        nack.consumer.pending.remove(id);
                    }
                    continue;
                }
                if (force && nack == null) {
                    nack = new StreamNack(0, 0, null);
                    g.pending.put(id, nack);
                }
                if (nack == null) {
                    continue;
                }
                if (nack.consumer != null && minIdle != 0 && now - nack.deliveryTime < minIdle) {
                    continue;
                }
                if (consumer == null) {
                    consumer = claimer(s, a, g, name, now);
                }
                nack.deliveryTime = deliveryTime;
                if (retryCount >= 0) {
                    nack.deliveryCount = retryCount;
                } else if (!justId) {
                    nack.deliveryCount++;
                }
                transfer(nack, consumer, id);
                claimed(body, st, id, justId, scratch);
                n++;
                s.propagateAs(StreamGroups.xclaim(key, groupName, g, id, nack));
                propagateLastId = false;
                s.dirtyQuietly(1);
            }
            if (propagateLastId) {
                s.propagateAs(StreamGroups.setId(key, groupName, g));
                s.dirtyQuietly(1);
            }
            seg.adjustMemory(st.memoryUsage() - before);
            s.out().array(n);
            s.out().raw(body.array(), 0, body.size());
        } finally {
            seg.unlock();
        }
    }

    /** The consumer claiming entries: looked up (seen now) or created, as Redis's streamLookupConsumer/streamCreateConsumer. */
    private static StreamConsumer claimer(Session s, Args a, StreamGroup g, byte[] name, long now) {
        boolean[] created = new boolean[1];
        StreamConsumer c = StreamGroups.consumer(g, name, now, created);
        c.seenTime = now;
        if (created[0]) {
            s.dirtyQuietly(1);
            s.notify(Notifications.STREAM, "xgroup-createconsumer", a, 1);
        }
        return c;
    }

    // XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
    static void xautoclaim(Session s, Args a) {
        long minIdle = Math.max(0, parseLong(a, 4, "Invalid min-idle-time argument for XAUTOCLAIM"));
        boolean[] ex = new boolean[1];
        Streams.Id sid = Streams.parseInterval(a, 5, 0, ex);
        long[] start = {sid.ms(), sid.seq()};
        if (ex[0] && !Streams.incr(start)) {
            throw new RedisError("ERR invalid start ID for the interval");
        }
        long count = 100;
        boolean justId = false;
        for (int j = 6; j < a.count(); j++) {
            if (a.is(j, "COUNT") && j + 1 < a.count()) {
                long max = Long.MAX_VALUE / 16;
                long c;
                try {
                    c = a.parseLong(j + 1);
                } catch (NumberFormatException e) {
                    throw new RedisError("ERR COUNT must be > 0");
                }
                if (c < 1 || c > max) {
                    throw new RedisError("ERR COUNT must be > 0");
                }
                count = c;
                j++;
            } else if (a.is(j, "JUSTID")) {
                justId = true;
            } else {
                throw Errors.SYNTAX;
            }
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            StreamValue st = Streams.read(s, seg, a, 1, h);
            StreamGroup g = st == null || st.groupCount() == 0 ? null : st.groups().get(a.copy(2));
            if (g == null) {
                throw noGroup(a, 1, 2);
            }
            if (count >= 1L << 43) {
                // Redis allocates 16 bytes per COUNT up front; past the 47-bit address space malloc fails
                throw new RedisError("ERR Insufficient memory, failed allocating transient memory, COUNT too high.");
            }
            long before = st.memoryUsage();
            byte[] key = a.copy(1);
            byte[] groupName = a.copy(2);
            byte[] name = a.copy(3);
            long now = s.now();
            long attempts = count * 10;
            StreamConsumer consumer = null;
            ReplyBuffer body = scratchReply(s);
            int n = 0;
            List<StreamId> deleted = new ArrayList<>();
            byte[] scratch = new byte[24];
            StreamId cursor = new StreamId(start[0], start[1]);
            while (attempts-- > 0 && count > 0 && cursor != null) {
                Map.Entry<StreamId, StreamNack> e = g.pending.ceilingEntry(cursor);
                if (e == null) {
                    cursor = null;
                    break;
                }
                StreamId id = e.getKey();
                StreamNack nack = e.getValue();
                cursor = successor(id);
                if (!st.contains(id.ms(), id.seq())) {
                    s.propagateAs(StreamGroups.xclaim(key, groupName, g, id, nack));
                    s.dirtyQuietly(1);
                    g.pending.remove(id);
                    nack.consumer.pending.remove(id);
                    deleted.add(id);
                    count--;
                    continue;
                }
                if (minIdle != 0 && now - nack.deliveryTime < minIdle) {
                    continue;
                }
                if (consumer == null) {
                    consumer = claimer(s, a, g, name, now);
                }
                nack.deliveryTime = now;
                if (!justId) {
                    nack.deliveryCount++;
                }
                transfer(nack, consumer, id);
                claimed(body, st, id, justId, scratch);
                n++;
                count--;
                s.propagateAs(StreamGroups.xclaim(key, groupName, g, id, nack));
                s.dirtyQuietly(1);
            }
            StreamId next = cursor == null ? null : g.pending.ceilingKey(cursor); // the cursor for the next call
            seg.adjustMemory(st.memoryUsage() - before);
            ReplyBuffer out = s.out();
            out.array(3);
            out.bulk(next == null ? StreamId.MIN.format() : next.format());
            out.array(n);
            out.raw(body.array(), 0, body.size());
            out.array(deleted.size());
            for (StreamId id : deleted) {
                out.bulk(id.format());
            }
        } finally {
            seg.unlock();
        }
    }

    /** Gives a pending entry to {@code consumer}, taking it from its previous owner's list (XCLAIM, XAUTOCLAIM). */
    private static void transfer(StreamNack nack, StreamConsumer consumer, StreamId id) {
        if (nack.consumer == consumer) {
            return;
        }
        if (nack.consumer != null) {
            nack.consumer.pending.remove(id);
        }
        consumer.pending.put(id, nack);
        nack.consumer = consumer;
    }

    /** A claimed entry in the reply: its ID alone (JUSTID) or the whole entry. */
    private static void claimed(ReplyBuffer body, StreamValue st, StreamId id, boolean justId, byte[] scratch) {
        if (justId) {
            body.bulk(id.format());
            return;
        }
        StreamCursor c = st.cursor(id.ms(), id.seq(), id.ms(), id.seq(), false);
        c.next();
        Streams.entry(body, c, scratch);
    }

    /** A buffer for a reply whose length is known only at the end (claims skip entries as they go). */
    private static ReplyBuffer scratchReply(Session s) {
        ReplyBuffer b = new ReplyBuffer();
        b.resp3(s.out().resp3());
        return b;
    }

    private static StreamId successor(StreamId id) {
        long[] v = {id.ms(), id.seq()};
        return Streams.incr(v) ? new StreamId(v[0], v[1]) : null;
    }
}
