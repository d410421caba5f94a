package dev.spinel.persistence;

import dev.spinel.store.ValueType;
import dev.spinel.store.types.CollectionSettings;
import dev.spinel.store.types.ListpackElements;
import dev.spinel.store.types.stream.StreamConsumer;
import dev.spinel.store.types.stream.StreamGroup;
import dev.spinel.store.types.stream.StreamId;
import dev.spinel.store.types.stream.StreamNack;
import dev.spinel.store.types.stream.StreamValue;

import java.util.Map;

/**
 * Streams. Written as {@code RDB_TYPE_STREAM_LISTPACKS_2} (19), what redis-server 7.0 writes:
 * <pre>
 *   nodes: len, then per node the 16-byte big-endian master ID and the listpack, as strings
 *   length, last-id (ms, seq), first-id, max-deleted-id, entries-added: lengths
 *   groups: len, per group: name, last-id, entries-read, PEL (len, per entry 16-byte ID raw,
 *           delivery time 8 bytes LE, delivery count), consumers (len, per consumer: name, seen time
 *           8 bytes LE, PEL IDs raw)
 * </pre>
 * Read: that, {@code RDB_TYPE_STREAM_LISTPACKS} (15, Redis 5-6.2: no first/max-deleted/added and no
 * entries-read) and {@code RDB_TYPE_STREAM_LISTPACKS_3} (21, Redis 7.2: each consumer also has an
 * active time). Nodes are checked element by element before use; bad data is an {@link RdbException}.
 *
 * <p>{@link #snapshot} deep-copies the stream under the segment lock. Stateless and thread-safe.
 */
public final class StreamCodec implements ValueCodec {
    public static final int TYPE_STREAM_LISTPACKS_3 = 21;
    private final CollectionSettings settings;

    public StreamCodec(CollectionSettings settings) {
        this.settings = settings;
    }

    @Override
    public ValueType type() {
        return ValueType.STREAM;
    }

    @Override
    public int rdbType(Object snapshot) {
        return Rdb.TYPE_STREAM_LISTPACKS_2;
    }

    @Override
    public int[] readTypes() {
        return new int[] {Rdb.TYPE_STREAM_LISTPACKS, Rdb.TYPE_STREAM_LISTPACKS_2, TYPE_STREAM_LISTPACKS_3};
    }

    @Override
    public Object snapshot(Object value) {
        return ((StreamValue) value).copy();
    }

    @Override
    public void write(Object snapshot, RdbOutput out) {
        StreamValue s = (StreamValue) snapshot;
        out.writeLength(s.nodeCount());
        for (int i = 0; i < s.nodeCount(); i++) {
            out.writeString(idBytes(s.nodeMs(i), s.nodeSeq(i)));
            out.writeString(listpack(s.nodeBytes(i), s.nodeUsed(i)));
        }
        out.writeLength(s.size());
        out.writeLength(s.lastMs());
        out.writeLength(s.lastSeq());
        out.writeLength(s.firstMs());
        out.writeLength(s.firstSeq());
        out.writeLength(s.maxDeletedMs());
        out.writeLength(s.maxDeletedSeq());
        out.writeLength(s.entriesAdded());
        out.writeLength(s.groupCount());
        if (s.groupCount() == 0) {
            return;
        }
        for (Map.Entry<byte[], StreamGroup> e : s.groups().entrySet()) {
            StreamGroup g = e.getValue();
            out.writeString(e.getKey());
            out.writeLength(g.lastMs);
            out.writeLength(g.lastSeq);
            out.writeLength(g.entriesRead);
            out.writeLength(g.pending.size());
            for (Map.Entry<StreamId, StreamNack> p : g.pending.entrySet()) {
                out.write(idBytes(p.getKey().ms(), p.getKey().seq()));
                out.writeLongLE(p.getValue().deliveryTime);
                out.writeLength(p.getValue().deliveryCount);
            }
            out.writeLength(g.consumers.size());
            for (StreamConsumer c : g.consumers.values()) {
                out.writeString(c.name);
                out.writeLongLE(c.seenTime);
                out.writeLength(c.pending.size());
                for (StreamId id : c.pending.keySet()) {
                    out.write(idBytes(id.ms(), id.seq()));
                }
            }
        }
    }

    /** A whole listpack (header, elements, terminator) around a node's elements. */
    static byte[] listpack(byte[] elements, int used) {
        byte[] lp = new byte[used + ListpackElements.OVERHEAD];
        int total = lp.length;
        for (int i = 0; i < 4; i++) {
            lp[i] = (byte) (total >>> (8 * i));
        }
        int count = 0;
        for (int p = 0; p < used; p = ListpackElements.next(elements, p)) {
            count++;
        }
        int c = Math.min(count, 0xFFFF);
        lp[4] = (byte) c;
        lp[5] = (byte) (c >>> 8);
        System.arraycopy(elements, 0, lp, 6, used);
        lp[total - 1] = (byte) 0xFF;
        return lp;
    }

    static byte[] idBytes(long ms, long seq) {
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (ms >>> (56 - 8 * i));
            b[8 + i] = (byte) (seq >>> (56 - 8 * i));
        }
        return b;
    }

    private static long be64(byte[] b, int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[off + i] & 0xFF);
        }
        return v;
    }

    @Override
    public Object read(int rdbType, RdbInput in) {
        StreamValue s = new StreamValue(settings);
        long nodes = in.readLength();
        long prevMs = 0;
        long prevSeq = 0;
        for (long i = 0; i < nodes; i++) {
            byte[] key = in.readString();
            if (key.length != 16) {
                throw new RdbException("Stream node key entry is not the size of a stream ID");
            }
            byte[] lp = in.readString();
            long ms = be64(key, 0);
            long seq = be64(key, 8);
            if (i > 0 && StreamId.compare(ms, seq, prevMs, prevSeq) <= 0) {
                throw new RdbException("Stream node keys are not in increasing order");
            }
            prevMs = ms;
            prevSeq = seq;
            s.addNode(ms, seq, StreamNodeCheck.elements(lp));
        }
        long length = in.readLength();
        long lastMs = in.readLength();
        long lastSeq = in.readLength();
        long firstMs = 0;
        long firstSeq = 0;
        long delMs = 0;
        long delSeq = 0;
        long added = length;
        boolean v1 = rdbType == Rdb.TYPE_STREAM_LISTPACKS;
        if (!v1) {
            firstMs = in.readLength();
            firstSeq = in.readLength();
            delMs = in.readLength();
            delSeq = in.readLength();
            added = in.readLength();
        }
        s.restoreMeta(length, lastMs, lastSeq, firstMs, firstSeq, delMs, delSeq, added);
        if (StreamNodeCheck.liveEntries(s) != length) {
            throw new RdbException("Stream length does not match its entries");
        }
        if (length > 0 && s.nodeCount() == 0) {
            throw new RdbException("Stream with entries but no nodes");
        }
        if (v1) {
            s.refreshFirstId();
        }
        long groups = in.readLength();
        for (long i = 0; i < groups; i++) {
            byte[] name = in.readString();
            long gMs = in.readLength();
            long gSeq = in.readLength();
            // Redis 5-6.2 kept no entries-read: Redis 7.0 estimates it from the stream's metadata
            long read = v1 ? s.distanceFromFirstEver(gMs, gSeq) : in.readLength();
            StreamGroup g = new StreamGroup(gMs, gSeq, read);
            if (s.groups().putIfAbsent(name, g) != null) {
                throw new RdbException("Duplicated consumer group name " + new String(name));
            }
            long pel = in.readLength();
            byte[] raw = new byte[16];
            for (long j = 0; j < pel; j++) {
                in.readFully(raw, 0, 16);
                StreamId id = new StreamId(be64(raw, 0), be64(raw, 8));
                long time = in.readLongLE();
                long count = in.readLength();
                if (g.pending.put(id, new StreamNack(time, count, null)) != null) {
                    throw new RdbException("Duplicated global PEL entry loading stream consumer group");
                }
            }
            long consumers = in.readLength();
            for (long j = 0; j < consumers; j++) {
                byte[] cname = in.readString();
                StreamConsumer c = new StreamConsumer(cname, in.readLongLE());
                if (rdbType == TYPE_STREAM_LISTPACKS_3) {
                    in.readLongLE(); // Redis 7.2's active time: 7.0 has only the seen time
                }
                if (g.consumers.putIfAbsent(cname, c) != null) {
                    throw new RdbException("Duplicate stream consumer detected");
                }
                long cp = in.readLength();
                for (long k = 0; k < cp; k++) {
                    in.readFully(raw, 0, 16);
                    StreamId id = new StreamId(be64(raw, 0), be64(raw, 8));
                    StreamNack n = g.pending.get(id);
                    if (n == null || n.consumer != null) {
                        throw new RdbException("Consumer PEL entry without a matching global PEL entry");
                    }
                    n.consumer = c;
                    c.pending.put(id, n);
                }
            }
            for (StreamNack n : g.pending.values()) {
                if (n.consumer == null) {
                    throw new RdbException("Stream group PEL entry without an owner");
                }
            }
        }
        return s;
    }
}
