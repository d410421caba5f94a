package dev.spinel.persistence;

import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a keyspace as an RDB version 10 file (layout in {@link Rdb}), without fork and without
 * stopping writers: each of a database's 64 segments is copied under its own lock (keys, expiry,
 * access stamp and {@link ValueCodec#snapshot}s of the values), then serialized after the lock is
 * released.
 *
 * <p>Consistency guaranteed: each segment is captured atomically (every command touching only that
 * segment is either wholly in or wholly out), but different segments are captured at different
 * moments, so a multi-key command spanning segments (MSET, RENAME, MULTI/EXEC) may appear half-applied.
 * Keys already expired at capture time are left out.
 *
 * <p>Thread-safety: an instance holds no state between calls; concurrent writes to different streams
 * are safe.
 */
public final class RdbWriter {
    /** Which access information to save per key, as Redis does under an LRU or LFU maxmemory policy. */
    public enum Access { NONE, LRU_IDLE, LFU_FREQ }

    /** What to write besides the keys. */
    public record Options(boolean compression, boolean checksum, Access access, Map<String, Object> aux) {
        /** Redis 7.0's AUX fields, in its order; values are {@code String} or {@code Long}. */
        public static Map<String, Object> redisAux(String version, long usedMemory, boolean aofBase) {
            Map<String, Object> aux = new LinkedHashMap<>();
            aux.put("redis-ver", version);
            aux.put("redis-bits", 64L);
            aux.put("ctime", System.currentTimeMillis() / 1000);
            aux.put("used-mem", usedMemory);
            aux.put("aof-base", aofBase ? 1L : 0L);
            return aux;
        }
    }

    private final ValueCodecs codecs;

    public RdbWriter(ValueCodecs codecs) {
        this.codecs = codecs;
    }

    /** Writes the whole keyspace to {@code os} (not closed). Returns the number of keys written. */
    public long write(Keyspace keyspace, OutputStream os, Options options) {
        RdbOutput out = new RdbOutput(os, options.compression());
        writeHeader(out, options.aux());
        long keys = 0;
        for (int d = 0; d < keyspace.databases(); d++) {
            keys += writeDatabase(out, keyspace, keyspace.db(d), options.access());
        }
        writeFooter(out, options.checksum());
        return keys;
    }

    static void writeHeader(RdbOutput out, Map<String, Object> aux) {
        out.write(Rdb.MAGIC);
        out.write(String.format("%04d", Rdb.VERSION).getBytes(StandardCharsets.US_ASCII));
        for (Map.Entry<String, Object> a : aux.entrySet()) {
            out.writeByte(Rdb.OPCODE_AUX);
            out.writeString(a.getKey().getBytes(StandardCharsets.UTF_8));
            if (a.getValue() instanceof Long l) {
                out.writeString(l);
            } else {
                out.writeString(a.getValue().toString().getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    static void writeFooter(RdbOutput out, boolean checksum) {
        out.writeByte(Rdb.OPCODE_EOF);
        long crc = out.crc();
        out.writeUnchecked(checksum ? crc : 0);
        out.flush();
    }

    private long writeDatabase(RdbOutput out, Keyspace keyspace, Database db, Access access) {
        long size = db.size();
        if (size == 0) {
            return 0;
        }
        out.writeByte(Rdb.OPCODE_SELECTDB);
        out.writeLength(db.index());
        out.writeByte(Rdb.OPCODE_RESIZEDB); // sizes are hints for the reader's table sizing
        out.writeLength(size);
        out.writeLength(db.volatileCount());
        long written = 0;
        List<Captured> batch = new ArrayList<>();
        for (int i = 0; i < Database.SEGMENTS; i++) {
            capture(keyspace, db.segmentAt(i), access, batch);
            for (Captured c : batch) {
                writeEntry(out, c.key, c.codec, c.snapshot, c.expireAt, access, c.accessValue);
            }
            written += batch.size();
            batch.clear();
        }
        return written;
    }

    private record Captured(byte[] key, ValueCodec codec, Object snapshot, long expireAt, long accessValue) {
    }

    /** A whole-keyspace capture: per database, its entries (see {@link #capture}). */
    public static final class Snapshot {
        private final List<List<Captured>> dbs = new ArrayList<>();
        private final Access access;

        private Snapshot(Access access) {
            this.access = access;
        }

        public long keys() {
            long n = 0;
            for (List<Captured> d : dbs) {
                n += d.size();
            }
            return n;
        }
    }

    /**
     * Captures every entry of the keyspace. Point-in-time when the caller holds every stripe of every
     * database (e.g. an AOF rewrite switching files); without them, consistent per stripe. Only
     * references and {@link ValueCodec#snapshot}s are taken, so the cost is one small record per key.
     */
    public Snapshot capture(Keyspace keyspace, Access access) {
        Snapshot snap = new Snapshot(access);
        for (int d = 0; d < keyspace.databases(); d++) {
            List<Captured> entries = new ArrayList<>();
            Database db = keyspace.db(d);
            for (int i = 0; i < Database.SEGMENTS; i++) {
                capture(keyspace, db.segmentAt(i), access, entries);
            }
            snap.dbs.add(entries);
        }
        return snap;
    }

    /** Writes a capture as a complete RDB file to {@code os} (not closed). Returns the keys written. */
    public long write(Snapshot snap, OutputStream os, Options options) {
        RdbOutput out = new RdbOutput(os, options.compression());
        writeHeader(out, options.aux());
        long keys = 0;
        for (int d = 0; d < snap.dbs.size(); d++) {
            List<Captured> entries = snap.dbs.get(d);
            if (entries.isEmpty()) {
                continue;
            }
            long volatileKeys = 0;
            for (Captured c : entries) {
                if (c.expireAt >= 0) {
                    volatileKeys++;
                }
            }
            out.writeByte(Rdb.OPCODE_SELECTDB);
            out.writeLength(d);
            out.writeByte(Rdb.OPCODE_RESIZEDB);
            out.writeLength(entries.size());
            out.writeLength(volatileKeys);
            for (Captured c : entries) {
                writeEntry(out, c.key, c.codec, c.snapshot, c.expireAt, snap.access, c.accessValue);
            }
            keys += entries.size();
        }
        writeFooter(out, options.checksum());
        return keys;
    }

    private void capture(Keyspace keyspace, Segment seg, Access access, List<Captured> into) {
        seg.lock();
        try {
            long now = System.currentTimeMillis();
            seg.forEach(e -> {
                long at = e.expireAt();
                if (at >= 0 && at <= now) {
                    return;
                }
                ValueCodec codec = codecs.forValue(e.value());
                if (codec == null) {
                    throw new RdbException("no RDB codec for type " + dev.spinel.store.ValueType.of(e.value()).redisName());
                }
                into.add(new Captured(e.key(), codec, codec.snapshot(e.value()), at, accessValue(keyspace, e, access)));
            });
        } finally {
            seg.unlock();
        }
    }

    private static long accessValue(Keyspace keyspace, Entry e, Access access) {
        return switch (access) {
            case NONE -> 0;
            case LRU_IDLE -> keyspace.idleSeconds(e);
            case LFU_FREQ -> keyspace.lfuCounter(e);
        };
    }

    /** One key: [expiry] [idle|freq] type key value (Redis's {@code rdbSaveKeyValuePair}). */
    static void writeEntry(RdbOutput out, byte[] key, ValueCodec codec, Object snapshot, long expireAt, Access access, long accessValue) {
        if (expireAt >= 0) {
            out.writeByte(Rdb.OPCODE_EXPIRETIME_MS);
            out.writeLongLE(expireAt);
        }
        if (access == Access.LRU_IDLE) {
            out.writeByte(Rdb.OPCODE_IDLE);
            out.writeLength(accessValue);
        } else if (access == Access.LFU_FREQ) {
            out.writeByte(Rdb.OPCODE_FREQ);
            out.writeByte((int) accessValue);
        }
        out.writeByte(codec.rdbType(snapshot));
        out.writeString(key);
        codec.write(snapshot, out);
    }
}
