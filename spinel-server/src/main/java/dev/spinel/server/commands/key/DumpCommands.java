package dev.spinel.server.commands.key;

import dev.spinel.persistence.DumpPayload;
import dev.spinel.persistence.KeyspaceLoader;
import dev.spinel.persistence.RdbException;
import dev.spinel.persistence.ValueCodec;
import dev.spinel.persistence.ValueCodecs;
import dev.spinel.protocol.Args;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;

/**
 * DUMP and RESTORE (Redis's cluster.c) with Redis 7.0's payload: RDB type and value, RDB version 10
 * as 2 bytes, CRC-64 (see {@link DumpPayload}). The payload is encoded and decoded outside the
 * segment lock; the lock covers only the lookup and the store, so RESTORE is atomic for its key.
 */
public final class DumpCommands {
    private static final RedisError BUSYKEY = new RedisError("BUSYKEY Target key name already exists.");
    private static final RedisError BAD_PAYLOAD = new RedisError("ERR DUMP payload version or checksum are wrong");
    private static final RedisError BAD_FORMAT = new RedisError("ERR Bad data format");
    private static final RedisError BAD_TTL = new RedisError("ERR Invalid TTL value, must be >= 0");

    private DumpCommands() {
    }

    public static void register(CommandTable t) {
        t.register("dump", DumpCommands::dump);
        t.register("restore", DumpCommands::restore);
        // MIGRATE's RESTORE in cluster mode: the same, flagged "asking" so an importing slot accepts it
        t.register("restore-asking", DumpCommands::restore);
    }

    // DUMP key
    static void dump(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        ValueCodec codec;
        Object snapshot;
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            if (e == null) {
                s.out().nullBulk();
                return;
            }
            codec = ValueCodecs.standard().forValue(e.value());
            if (codec == null) {
                throw new RedisError("ERR DUMP is not supported for this type");
            }
            snapshot = codec.snapshot(e.value());
        } finally {
            seg.unlock();
        }
        s.out().bulk(DumpPayload.create(codec, snapshot));
    }

    // RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]
    static void restore(Session s, Args a) {
        boolean replace = false;
        boolean absttl = false;
        long idle = -1;
        long freq = -1;
        for (int j = 4; j < a.count(); j++) {
            boolean more = j + 1 < a.count();
            if (a.is(j, "REPLACE")) {
                replace = true;
            } else if (a.is(j, "ABSTTL")) {
                absttl = true;
            } else if (a.is(j, "IDLETIME") && more && freq == -1) {
                idle = parseLong(a, ++j);
                if (idle < 0) {
                    throw new RedisError("ERR Invalid IDLETIME value, must be >= 0");
                }
            } else if (a.is(j, "FREQ") && more && idle == -1) {
                freq = parseLong(a, ++j);
                if (freq < 0 || freq > 255) {
                    throw new RedisError("ERR Invalid FREQ value, must be >= 0 and <= 255");
                }
            } else {
                throw Errors.SYNTAX;
            }
        }
        // Decoded before taking the lock; errors are reported below in Redis's order (BUSYKEY first).
        RedisError ttlError = null;
        long ttl = 0;
        try {
            ttl = a.parseLong(2);
            if (ttl < 0) {
                ttlError = BAD_TTL;
            }
        } catch (NumberFormatException e) {
            ttlError = Errors.NOT_INTEGER;
        }
        byte[] payload = a.copy(3);
        Object value = null;
        RedisError payloadError = null;
        if (!DumpPayload.verify(payload, s.engine().config().skipChecksumValidation)) {
            payloadError = BAD_PAYLOAD;
        } else {
            try {
                value = DumpPayload.read(ValueCodecs.standard(), payload);
            } catch (RdbException e) {
                CorruptPayloadLog.log(payload, e);
                payloadError = BAD_FORMAT;
            }
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry existing = Keys.write(s, seg, a, 1, h);
            if (!replace && existing != null) {
                throw BUSYKEY;
            }
            if (ttlError != null) {
                throw ttlError;
            }
            if (payloadError != null) {
                throw payloadError;
            }
            boolean deleted = false;
            if (replace && existing != null) {
                seg.removeEntry(existing);
                Keys.serverDeleted(s, existing.value());
                deleted = true;
            }
            long now = s.now();
            if (ttl != 0 && !absttl) {
                ttl = ttl > Long.MAX_VALUE - now ? Long.MAX_VALUE : ttl + now;
            }
            if (ttl != 0 && s.expiresAtOnce(ttl)) {
                if (deleted) {
                    s.dirty(1); // the old value is gone: the effect is a DEL
                    s.notify(Notifications.GENERIC, "del", a, 1);
                }
                s.out().ok();
                return;
            }
            Entry e = seg.insert(a.copy(1), h, value, ttl != 0 ? ttl : -1);
            KeyspaceLoader.applyAccess(s.engine().keyspace(), e, idle, (int) freq);
            s.engine().blocking().signal(s.db(), a.buffer(), a.offset(1), a.length(1));
            s.dirty(1);
            s.notify(Notifications.GENERIC, "restore", a, 1);
            s.out().ok();
        } finally {
            seg.unlock();
        }
    }

    private static long parseLong(Args a, int i) {
        try {
            return a.parseLong(i);
        } catch (NumberFormatException e) {
            throw Errors.NOT_INTEGER;
        }
    }
}
