package dev.spinel.server.commands.stream;

import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.store.types.stream.StreamConsumer;
import dev.spinel.store.types.stream.StreamCursor;
import dev.spinel.store.types.stream.StreamGroup;
import dev.spinel.store.types.stream.StreamId;
import dev.spinel.store.types.stream.StreamNack;
import dev.spinel.store.types.stream.StreamValue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Consumer-group mechanics shared by XREADGROUP (direct and served after blocking), XGROUP and XINFO:
 * delivering new entries to a consumer (PEL bookkeeping and what is logged instead), re-reading a
 * consumer's history, and Redis 7.0's entries-read / lag arithmetic. Callers hold the stream's
 * segment lock. Stateless.
 */
final class StreamGroups {
    static final byte[] XCLAIM = bytes("XCLAIM");
    static final byte[] XGROUP = bytes("XGROUP");
    static final byte[] SETID = bytes("SETID");
    static final byte[] ENTRIESREAD = bytes("ENTRIESREAD");

    private StreamGroups() {
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** The consumer, created (with its keyspace event left to the caller) when absent; null-safe lookup otherwise. */
    static StreamConsumer consumer(StreamGroup g, byte[] name, long now, boolean[] created) {
        StreamConsumer c = g.consumers.get(name);
        if (c == null) {
            c = new StreamConsumer(name, now);
            g.consumers.put(name, c);
            created[0] = true;
        }
        return c;
    }

    /**
     * Delivers entries after {@code start} (inclusive) to {@code consumer} (Redis's streamReplyWithRange
     * with a group): replies with them, advances the group's last ID and read counter, records NACKs
     * unless {@code noack}, and hands what Redis propagates to {@code log} (an XCLAIM per NACK, or with
     * NOACK an XGROUP SETID). Returns how many were delivered.
     */
    static int deliverNew(ReplyBuffer out, StreamValue s, byte[] key, byte[] groupName, StreamGroup g,
            StreamConsumer consumer, long sMs, long sSeq, long count, boolean noack, long now, Consumer<byte[][]> log) {
        int n = 0;
        StreamCursor c = s.cursor(sMs, sSeq, -1L, -1L, false);
        while ((count == 0 || n < count) && c.next()) {
            n++;
        }
        out.array(n);
        c = s.cursor(sMs, sSeq, -1L, -1L, false);
        byte[] scratch = new byte[24];
        boolean lastIdMoved = false;
        for (int i = 0; i < n && c.next(); i++) {
            long ms = c.ms();
            long seq = c.seq();
            if (StreamId.compare(ms, seq, g.lastMs, g.lastSeq) > 0) {
                if (g.entriesRead != StreamGroup.INVALID_ENTRIES_READ && !rangeHasTombstones(s, ms, seq, -1L, -1L)) {
                    g.entriesRead++;
                } else if (s.entriesAdded() != 0) {
                    g.entriesRead = distanceFromFirstEver(s, ms, seq);
                }
                g.lastMs = ms;
                g.lastSeq = seq;
                lastIdMoved = true;
            }
            Streams.entry(out, c, scratch);
            if (!noack) {
                StreamId id = new StreamId(ms, seq);
                StreamNack nack = g.pending.get(id);
                if (nack == null) {
                    nack = new StreamNack(now, 1, consumer);
                    g.pending.put(id, nack);
                } else {
                    nack.consumer.pending.remove(id);
                    nack.consumer = consumer;
                    nack.deliveryTime = now;
                    nack.deliveryCount = 1;
                }
                consumer.pending.put(id, nack);
                log.accept(xclaim(key, groupName, g, id, nack));
            }
        }
        if (lastIdMoved && noack) { // otherwise each XCLAIM's LASTID carries it (Redis 7.0.15)
            log.accept(setId(key, groupName, g));
        }
        return n;
    }

    /** Redis's streamPropagateXCLAIM: the NACK's state as an XCLAIM ... FORCE JUSTID LASTID. */
    static byte[][] xclaim(byte[] key, byte[] groupName, StreamGroup g, StreamId id, StreamNack nack) {
        return new byte[][] {XCLAIM, key, groupName, nack.consumer.name, bytes("0"), id.format(), bytes("TIME"),
                bytes(Long.toString(nack.deliveryTime)), bytes("RETRYCOUNT"), bytes(Long.toString(nack.deliveryCount)),
                bytes("FORCE"), bytes("JUSTID"), bytes("LASTID"), StreamId.format(g.lastMs, g.lastSeq)};
    }

    /** Redis's streamPropagateGroupID: XGROUP SETID key group last-id ENTRIESREAD n. */
    static byte[][] setId(byte[] key, byte[] groupName, StreamGroup g) {
        return new byte[][] {XGROUP, SETID, key, groupName, StreamId.format(g.lastMs, g.lastSeq), ENTRIESREAD,
                bytes(Long.toString(g.entriesRead))};
    }

    /**
     * Re-reads a consumer's pending entries from {@code start} (Redis's
     * streamReplyWithRangeFromConsumerPEL): entries gone from the stream reply {@code [id, nil]};
     * found ones count one more delivery.
     */
    static int deliverHistory(ReplyBuffer out, StreamValue s, StreamConsumer consumer, long sMs, long sSeq,
            long count, long now) {
        Map<StreamId, StreamNack> tail = consumer.pending.tailMap(new StreamId(sMs, sSeq), true);
        int n = (int) Math.min(tail.size(), count == 0 ? Integer.MAX_VALUE : count);
        out.array(n);
        byte[] scratch = new byte[24];
        int i = 0;
        for (Map.Entry<StreamId, StreamNack> e : tail.entrySet()) {
            if (i++ == n) {
                break;
            }
            StreamId id = e.getKey();
            StreamCursor c = s.cursor(id.ms(), id.seq(), id.ms(), id.seq(), false);
            if (c.next()) {
                Streams.entry(out, c, scratch);
                e.getValue().deliveryTime = now;
                e.getValue().deliveryCount++;
            } else {
                out.array(2);
                Streams.id(out, id.ms(), id.seq());
                out.nullArray();
            }
        }
        return n;
    }

    /** Redis's streamRangeHasTombstones: may [start, end] hold a deleted entry? */
    static boolean rangeHasTombstones(StreamValue s, long sMs, long sSeq, long eMs, long eSeq) {
        long dMs = s.maxDeletedMs();
        long dSeq = s.maxDeletedSeq();
        if (s.size() == 0 || (dMs == 0 && dSeq == 0)) {
            return false;
        }
        if (StreamId.compare(s.firstMs(), s.firstSeq(), dMs, dSeq) > 0) {
            return false;
        }
        return StreamId.compare(sMs, sSeq, dMs, dSeq) <= 0 && StreamId.compare(dMs, dSeq, eMs, eSeq) <= 0;
    }

    /** Redis's streamEstimateDistanceFromFirstEverEntry; {@link StreamGroup#INVALID_ENTRIES_READ} when unknown. */
    static long distanceFromFirstEver(StreamValue s, long ms, long seq) {
        return s.distanceFromFirstEver(ms, seq);
    }

    /** Writes a group's lag (Redis's streamReplyWithCGLag): an integer, or null when unknown. */
    static void lag(ReplyBuffer out, StreamValue s, StreamGroup g) {
        if (s.entriesAdded() == 0) {
            out.integer(0);
        } else if (g.entriesRead != StreamGroup.INVALID_ENTRIES_READ
                && !rangeHasTombstones(s, g.lastMs, g.lastSeq, -1L, -1L)) {
            out.integer(s.entriesAdded() - g.entriesRead);
        } else {
            long read = distanceFromFirstEver(s, g.lastMs, g.lastSeq);
            if (read != StreamGroup.INVALID_ENTRIES_READ) {
                out.integer(s.entriesAdded() - read);
            } else {
                out.nullBulk();
            }
        }
    }
}
