package dev.spinel.persistence;

import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;
import dev.spinel.store.SegmentCapture;
import dev.spinel.store.ValueType;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes a keyspace as an RDB version 10 file (layout in {@link Rdb}), without fork and without
 * stopping writers for more than a moment: a {@link Snapshot} is armed while every stripe is held
 * (a bit per chunk of {@value Segment#CAPTURE_CHUNK_BUCKETS} buckets of each segment), then each chunk is
 * copied by copy-on-write (keys, expiry, access stamp and {@link ValueCodec#snapshot}s of the values) by
 * the first writer that touches it or by the save thread, and serialized after its lock is released.
 *
 * <p>Consistency guaranteed: the image is the keyspace at the moment the snapshot was armed, with no
 * multi-key command (MSET, RENAME, MULTI/EXEC) half-applied, as a fork gives Redis. Keys already past their
 * expiry but not yet deleted are written too, as Redis's rdbSave writes them: a master loading the file skips
 * them (and sends its replicas their DELs), a replica keeps them for its master's DEL.
 *
 * <p>Thread-safety: an instance holds no state between calls; concurrent writes to different streams
 * are safe.
 */
public final class RdbWriter {
    /** Which access information to save per key, as Redis does under an LRU or LFU maxmemory policy. */
    public enum Access { NONE, LRU_IDLE, LFU_FREQ }

    /**
     * What to write besides the keys. {@code functions} are the function libraries' source codes, written
     * after the AUX fields and before the databases as Redis 7.0 does ({@code RDB_OPCODE_FUNCTION2}).
     */
    public record Options(boolean compression, boolean checksum, Access access, Map<String, Object> aux, List<byte[]> functions,
                          int keySaveDelayMicros) {
        public Options(boolean compression, boolean checksum, Access access, Map<String, Object> aux) {
            this(compression, checksum, access, aux, List.of());
        }

        public Options(boolean compression, boolean checksum, Access access, Map<String, Object> aux, List<byte[]> functions) {
            this(compression, checksum, access, aux, functions, 0);
        }

        /**
         * These options with a pause after each key written (Redis's rdb-key-save-delay, a test knob):
         * {@code micros} µs, or for a negative value 1 µs with probability 1/|micros|.
         */
        public Options withKeySaveDelay(int micros) {
            return new Options(compression, checksum, access, aux, functions, micros);
        }

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

    /** Chunks ({@link Segment#CAPTURE_CHUNK_BUCKETS} buckets each) the save thread copies per hold of a segment lock. */
    private static final int TAKE_CHUNKS_PER_LOCK = 4;

    private final ValueCodecs codecs;

    public RdbWriter(ValueCodecs codecs) {
        this.codecs = codecs;
    }

    /**
     * Writes the whole keyspace to {@code os} (not closed), as it was when this call began (see
     * {@link #snapshot}). Returns the number of keys written.
     */
    public long write(Keyspace keyspace, OutputStream os, Options options) {
        return write(snapshot(keyspace, options.access()), os, options);
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

    /** Each library as {@code RDB_OPCODE_FUNCTION2} and its code (Redis's {@code rdbSaveFunctions}). */
    static void writeFunctions(RdbOutput out, List<byte[]> functions) {
        for (byte[] code : functions) {
            out.writeByte(Rdb.OPCODE_FUNCTION2);
            out.writeString(code);
        }
    }

    static void writeFooter(RdbOutput out, boolean checksum) {
        out.writeByte(Rdb.OPCODE_EOF);
        long crc = out.crc();
        out.writeUnchecked(checksum ? crc : 0);
        out.flush();
    }

    /**
     * One segment's copy, in parallel arrays rather than an object per key, filled chunk by chunk: a
     * capture runs on a writer's event loop, so it allocates a handful of arrays per segment (at its first
     * chunk, sized for the keys the segment held when armed) and nothing per key. 17 bytes per key: the
     * entry and the value's snapshot (8 each) and the value's type (1, its codec is looked up when written);
     * the expiry array (8 more) only once the segment has a key with a TTL, the access stamps only under an
     * LRU/LFU policy. A random writer during a save soon touches every segment, so every segment's copy is
     * held at once: at 32 bytes per key (a codec reference and an expiry for every key) 10M keys held 320 MB.
     */
    private static final class Captured implements Segment.EntryVisitor {
        private static final long NO_EXPIRY = -1;
        private final Snapshot snap;
        int count;
        /** The entries whose keys are copied: a key is final in its entry, read when written (no copy here). */
        final Entry[] keys;
        /** {@link ValueType#ordinal()} of each value: its codec, looked up when written. */
        final byte[] types;
        final Object[] snapshots;
        /** Expiry per key, or null while no key of the copy has one (then none has). */
        long[] expireAt;
        final long[] access;

        Captured(Snapshot snap, int capacity, boolean withAccess) {
            this.snap = snap;
            keys = new Entry[capacity];
            types = new byte[capacity];
            snapshots = new Object[capacity];
            access = withAccess ? new long[capacity] : null;
        }

        int capacity() {
            return keys.length;
        }

        long expireAt(int i) {
            long[] at = expireAt;
            return at == null ? NO_EXPIRY : at[i];
        }

        /** Empties a written copy for reuse by another segment; drops its references so that it pins nothing. */
        void clear() {
            Arrays.fill(keys, 0, count, null);
            Arrays.fill(snapshots, 0, count, null);
            if (expireAt != null) {
                Arrays.fill(expireAt, 0, count, NO_EXPIRY);
            }
            count = 0;
        }

        /**
         * Pass one of a chunk's copy: the entry's fields only (one cache miss per entry, and the loop carries
         * no dependency from one bucket to the next, so the CPU overlaps those misses). The value's type is
         * looked at in pass two ({@link #finishChunk}), again one independent miss per key.
         */
        @Override
        public void visit(Entry e) {
            long at = e.expireAt();
            int i = count++;
            keys[i] = e;
            snapshots[i] = e.storedValue(); // a short string: the entry itself, not a copy
            if (at >= 0) {
                long[] all = expireAt;
                if (all == null) { // the copy's first key with a TTL: the keys before it had none
                    all = new long[keys.length];
                    Arrays.fill(all, NO_EXPIRY);
                    expireAt = all;
                }
                all[i] = at;
            }
            if (access != null) {
                access[i] = accessValue(snap.keyspace, e, snap.access);
            }
        }

        /** Pass two of a chunk's copy, over the keys added since {@code from}: type and value snapshot. */
        void finishChunk(int from) {
            for (int i = from; i < count; i++) {
                Object value = snapshots[i];
                ValueCodec codec = snap.codecFor(value);
                types[i] = (byte) codec.type().ordinal();
                snapshots[i] = codec.snapshot(value);
            }
        }
    }

    /**
     * A point-in-time image of a keyspace, copied lazily chunk by chunk (copy-on-write, see
     * {@link SegmentCapture}): arming costs a few bits per segment while every stripe is held; each chunk
     * of ~{@value Segment#CAPTURE_CHUNK_BUCKETS} keys is then copied (references to keys and strings,
     * {@link ValueCodec#snapshot}s of collections) by whichever thread reaches it first: a writer about to
     * read or change a key in it, or {@link #write} walking the keyspace, which copies what is left of a
     * segment a few chunks per hold of its lock ({@code TAKE_CHUNKS_PER_LOCK}). A writer thus pays for about
     * 64 keys per key it touches, never for a whole segment, and never waits for the save thread for
     * more than a few chunks. Copies are dropped as soon as they are written, so the memory held is
     * what writers touched ahead of the walk.
     *
     * <p>Thread-safety: captures run on any thread under their segment's lock; {@link #write} is called
     * by one thread, once.
     */
    public final class Snapshot implements SegmentCapture {
        private final Keyspace keyspace;
        private final Access access;
        private final long[] dbSizes;
        private final long[] dbVolatile;
        /** Per database, per segment: its copy so far, or null when not begun yet (or already written). */
        private final Captured[][] captured;
        /** Per database, per segment: keys when armed (an upper bound for the copy). */
        private final int[][] armedSizes;
        /**
         * A written segment's copy, emptied, for the next segment to reuse: without it a save allocated its
         * parallel arrays anew per segment (32 B per key of garbage over the whole save).
         */
        private final AtomicReference<Captured> spare = new AtomicReference<>();
        private volatile boolean cancelled;
        private volatile RuntimeException failure;

        private Snapshot(Keyspace keyspace, Access access) {
            this.keyspace = keyspace;
            this.access = access;
            int n = keyspace.databases();
            dbSizes = new long[n];
            dbVolatile = new long[n];
            captured = new Captured[n][Database.SEGMENTS];
            armedSizes = new int[n][Database.SEGMENTS];
        }

        /** Keys in the image, as counted when it was armed (keys past their expiry are left out when written). */
        public long keys() {
            long total = 0;
            for (long s : dbSizes) {
                total += s;
            }
            return total;
        }

        private ValueCodec codecFor(Object value) {
            ValueCodec codec = codecs.forValue(value);
            if (codec == null) {
                throw new RdbException("no RDB codec for type " + ValueType.of(value).redisName());
            }
            return codec;
        }

        @Override
        public void capture(Segment seg, int fromBucket, int toBucket) {
            if (cancelled) {
                return;
            }
            try {
                int d = seg.database().index();
                Captured into = captured[d][seg.index()];
                if (into == null) { // first chunk of this segment: room for every key it held when armed
                    int need = armedSizes[d][seg.index()];
                    into = spare.getAndSet(null);
                    if (into == null || into.capacity() < need) {
                        // an eighth more, so that the copy fits the next segments of about the same size when reused
                        into = new Captured(this, need + (need >>> 3), access != Access.NONE);
                    }
                    captured[d][seg.index()] = into;
                }
                int from = into.count;
                seg.forEachInBuckets(fromBucket, toBucket, into);
                into.finishChunk(from);
            } catch (RuntimeException e) {
                failure = e; // never thrown into the writer that happened to lock the segment
                cancelled = true;
            }
        }

        /**
         * Stops a save from another thread (FLUSHALL stops a BGSAVE, as Redis kills its child): the writing
         * thread fails with {@code reason} at its next key or segment, and the copies are released.
         */
        public void abort(String reason) {
            failure = new RdbException(reason);
            cancel();
        }

        /** Gives up: copies not yet made are skipped, those made are released. */
        public void cancel() {
            cancelled = true;
            for (Captured[] db : captured) {
                Arrays.fill(db, null);
            }
        }

        /** This segment's copy, copying the chunks no writer has (a few per lock hold); the copy is released. */
        private Captured take(Segment seg) {
            // The chunks no writer has copied yet, a few per lock hold: a writer waits for at most those.
            while (true) {
                seg.lock();
                try {
                    if (!seg.capturePending(TAKE_CHUNKS_PER_LOCK)) {
                        break; // still locked: taken below
                    }
                } catch (RuntimeException e) {
                    seg.unlock();
                    throw e;
                }
                seg.unlock();
            }
            try {
                Captured c = captured[seg.database().index()][seg.index()];
                captured[seg.database().index()][seg.index()] = null;
                return c;
            } finally {
                seg.unlock();
            }
        }
    }

    /**
     * Arms a point-in-time snapshot of the keyspace. The caller holds every stripe of every database
     * ({@link Keyspace#lockAll()}), so the image is exactly the state at this call, with no multi-key
     * command half-applied; arming costs a few bits per segment, not a copy of the data.
     */
    public Snapshot arm(Keyspace keyspace, Access access) {
        Snapshot snap = new Snapshot(keyspace, access);
        for (int d = 0; d < keyspace.databases(); d++) {
            Database db = keyspace.db(d);
            for (int i = 0; i < Database.SEGMENTS; i++) {
                Segment seg = db.segmentAt(i);
                if (!seg.isHeldByCurrentThread()) {
                    throw new IllegalStateException("arming a snapshot needs every stripe held");
                }
                snap.dbSizes[d] += seg.size();
                snap.dbVolatile[d] += seg.volatileCount();
                snap.armedSizes[d][i] = seg.size();
                seg.armCapture(snap); // no-op when empty
            }
        }
        return snap;
    }

    /** Arms a point-in-time snapshot, taking and releasing every stripe for the moment it needs. */
    public Snapshot snapshot(Keyspace keyspace, Access access) {
        keyspace.lockAll();
        try {
            return arm(keyspace, access);
        } finally {
            keyspace.unlockAll();
        }
    }

    /**
     * Writes a snapshot as a complete RDB file to {@code os} (not closed), segment by segment. Returns
     * the keys written. On failure the snapshot is cancelled, so writers stop copying for it.
     */
    public long write(Snapshot snap, OutputStream os, Options options) {
        RdbOutput out;
        try {
            out = new RdbOutput(os, options.compression());
            writeHeader(out, options.aux());
            writeFunctions(out, options.functions());
        } catch (RuntimeException e) {
            snap.cancel();
            throw e;
        }
        long keys = walk(snap, new SnapshotVisitor() {
            @Override
            public void database(int index, long size, long volatileKeys) {
                out.writeByte(Rdb.OPCODE_SELECTDB);
                out.writeLength(index);
                out.writeByte(Rdb.OPCODE_RESIZEDB); // sizes are hints for the reader's table sizing
                out.writeLength(size);
                out.writeLength(volatileKeys);
            }

            @Override
            public void key(byte[] key, int keyLength, ValueCodec codec, Object snapshot, long expireAt, long access) {
                writeEntry(out, key, keyLength, codec, snapshot, expireAt, snap.access, access);
            }
        }, options.keySaveDelayMicros());
        try {
            writeFooter(out, options.checksum());
        } catch (RuntimeException e) {
            snap.cancel();
            throw e;
        }
        return keys;
    }

    /**
     * Hands a snapshot's non-empty databases and their keys to {@code visitor}, segment by segment (the RDB
     * form above, the command form of {@link AofCommandWriter}), pausing {@code keySaveDelayMicros} after
     * each key (Redis's rdb-key-save-delay). Returns the keys visited. On failure the snapshot is
     * cancelled, so writers stop copying for it.
     */
    public long walk(Snapshot snap, SnapshotVisitor visitor, int keySaveDelayMicros) {
        try {
            long keys = 0;
            byte[] keyScratch = new byte[Entry.MAX_INLINE_KEY]; // no key array per key: 10M keys made 320 MB of garbage
            for (int d = 0; d < snap.dbSizes.length; d++) {
                if (snap.dbSizes[d] == 0) {
                    continue;
                }
                visitor.database(d, snap.dbSizes[d], snap.dbVolatile[d]);
                Database db = snap.keyspace.db(d);
                for (int i = 0; i < Database.SEGMENTS; i++) {
                    Captured entries = snap.take(db.segmentAt(i));
                    if (snap.failure != null) {
                        throw snap.failure;
                    }
                    if (entries == null) {
                        continue; // empty when armed
                    }
                    for (int k = 0; k < entries.count; k++) {
                        Entry e = entries.keys[k];
                        visitor.key(e.keyBytes(keyScratch), e.keyLength(), codecs.forType(entries.types[k]), entries.snapshots[k],
                                entries.expireAt(k), entries.access == null ? 0 : entries.access[k]);
                        if (keySaveDelayMicros != 0) {
                            keySaveDelay(keySaveDelayMicros, snap);
                            if (snap.failure != null) { // aborted while it slept: a slow save stops at once
                                throw snap.failure;
                            }
                        }
                    }
                    keys += entries.count;
                    entries.clear();
                    snap.spare.set(entries);
                }
            }
            return keys;
        } catch (RuntimeException e) {
            snap.cancel();
            throw e;
        }
    }

    /**
     * An RDB with no database in it: the header and AUX fields, the functions, the footer (what Redis sends a
     * replica that filtered the keys out with REPLCONF rdb-filter-only).
     */
    public static void writeWithoutKeys(OutputStream os, Options options) {
        RdbOutput out = new RdbOutput(os, options.compression());
        writeHeader(out, options.aux());
        writeFunctions(out, options.functions());
        writeFooter(out, options.checksum());
    }

    /** Redis's debugDelay; a cancelled snapshot (the save was stopped) stops sleeping. */
    private static void keySaveDelay(int micros, Snapshot snap) {
        long us = micros > 0 ? micros : ThreadLocalRandom.current().nextLong(-(long) micros) == 0 ? 1 : 0;
        long deadline = System.nanoTime() + us * 1000;
        for (long left = us * 1000; left > 0 && snap.failure == null; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(Math.min(left, 100_000_000L)); // wake up now and then to see a cancel
            if (Thread.interrupted()) {
                throw new IllegalStateException("save interrupted");
            }
        }
    }

    private static long accessValue(Keyspace keyspace, Entry e, Access access) {
        return switch (access) {
            case NONE -> 0;
            case LRU_IDLE -> keyspace.idleSeconds(e);
            case LFU_FREQ -> keyspace.lfuCounter(e);
        };
    }

    /** One key, {@code key[0, keyLength)}: [expiry] [idle|freq] type key value (Redis's {@code rdbSaveKeyValuePair}). */
    static void writeEntry(RdbOutput out, byte[] key, int keyLength, ValueCodec codec, Object snapshot, long expireAt, Access access,
                           long accessValue) {
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
        out.writeString(key, keyLength);
        codec.write(snapshot, out);
    }
}
