package dev.spinel.server.commands.stream;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Segment;
import dev.spinel.store.types.stream.StreamConsumer;
import dev.spinel.store.types.stream.StreamGroup;
import dev.spinel.store.types.stream.StreamId;
import dev.spinel.store.types.stream.StreamNack;
import dev.spinel.store.types.stream.StreamValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

/**
 * XPENDING, summary and extended form (Redis 7.0's xpendingCommand): reads a group's pending entries
 * list under the stream's segment lock. Stateless.
 */
final class StreamPendingCommands {
    private StreamPendingCommands() {
    }

    // XPENDING key group [[IDLE min-idle-time] start end count [consumer]]
    static void xpending(Session s, Args a) {
        boolean summary = a.count() == 3;
        if (a.count() != 3 && (a.count() < 6 || a.count() > 9)) {
            throw Errors.SYNTAX;
        }
        long count = 0;
        long minIdle = 0;
        long[] start = new long[2];
        long[] end = new long[2];
        byte[] consumerName = null;
        if (!summary) {
            int from = 3;
            if (a.is(3, "IDLE")) {
                minIdle = StreamCommands.parseLong(a, 4);
                if (a.count() < 8) {
                    throw Errors.SYNTAX;
                }
                from += 2;
            }
            count = Math.max(0, StreamCommands.parseLong(a, from + 2));
            boolean[] ex = new boolean[1];
            Streams.Id st = Streams.parseInterval(a, from, 0, ex);
            start[0] = st.ms();
            start[1] = st.seq();
            if (ex[0] && !Streams.incr(start)) {
                throw new RedisError("ERR invalid start ID for the interval");
            }
            Streams.Id en = Streams.parseInterval(a, from + 1, -1L, ex);
            end[0] = en.ms();
            end[1] = en.seq();
            if (ex[0] && !Streams.decr(end)) {
                throw new RedisError("ERR invalid end ID for the interval");
            }
            if (from + 3 < a.count()) {
                consumerName = a.copy(from + 3);
            }
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            StreamValue st = Streams.read(s, seg, a, 1, h);
            StreamGroup g = st == null || st.groupCount() == 0 ? null : st.groups().get(a.copy(2));
            if (g == null) {
                throw StreamClaimCommands.noGroup(a, 1, 2);
            }
            ReplyBuffer out = s.out();
            if (summary) {
                out.array(4);
                out.integer(g.pending.size());
                if (g.pending.isEmpty()) {
                    out.nullBulk();
                    out.nullBulk();
                    out.nullArray();
                    return;
                }
                out.bulk(g.pending.firstKey().format());
                out.bulk(g.pending.lastKey().format());
                int n = 0;
                for (StreamConsumer c : g.consumers.values()) {
                    if (!c.pending.isEmpty()) {
                        n++;
                    }
                }
                out.array(n);
                for (StreamConsumer c : g.consumers.values()) {
                    if (!c.pending.isEmpty()) {
                        out.array(2);
                        out.bulk(c.name);
                        out.bulk(c.pending.size());
                    }
                }
                return;
            }
            NavigableMap<StreamId, StreamNack> pel = g.pending;
            if (consumerName != null) {
                StreamConsumer c = g.consumers.get(consumerName);
                if (c == null) {
                    out.array(0);
                    return;
                }
                pel = c.pending;
            }
            StreamId from = new StreamId(start[0], start[1]);
            StreamId to = new StreamId(end[0], end[1]);
            List<Map.Entry<StreamId, StreamNack>> hits = new ArrayList<>();
            long now = s.now();
            if (from.compareTo(to) <= 0) {
                for (Map.Entry<StreamId, StreamNack> e : pel.subMap(from, true, to, true).entrySet()) {
                    if (hits.size() >= count) {
                        break;
                    }
                    if (minIdle != 0 && now - e.getValue().deliveryTime < minIdle) {
                        continue;
                    }
                    hits.add(e);
                }
            }
            out.array(hits.size());
            for (Map.Entry<StreamId, StreamNack> e : hits) {
                StreamNack n = e.getValue();
                out.array(4);
                out.bulk(e.getKey().format());
                out.bulk(n.consumer.name);
                out.integer(Math.max(0, now - n.deliveryTime));
                out.integer(n.deliveryCount);
            }
        } finally {
            seg.unlock();
        }
    }
}
