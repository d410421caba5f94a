package dev.spinel.server.commands.hash;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.LongDouble;
import dev.spinel.protocol.Numbers;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.common.BulkWriter;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.types.HashValue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * Hash commands (Redis's t_hash.c): field reads and writes and counters. HRANDFIELD and HSCAN are in
 * {@link HashScanCommands}. Every command holds its key's segment lock for its whole read-modify-write;
 * a hash left without fields is deleted.
 */
public final class HashCommands {
    private static final RedisError HASH_NOT_INTEGER = new RedisError("ERR hash value is not an integer");
    private static final RedisError HASH_NOT_FLOAT = new RedisError("ERR hash value is not a float");
    private static final RedisError NAN_OR_INF = new RedisError("ERR value is NaN or Infinity");
    private static final RedisError WOULD_BE_NAN = new RedisError("ERR increment would produce NaN or Infinity");

    private HashCommands() {
    }

    public static void register(CommandTable t) {
        t.register("hset", (s, a) -> hset(s, a, false));
        t.register("hmset", (s, a) -> hset(s, a, true));
        t.register("hsetnx", HashCommands::hsetnx);
        t.register("hget", HashCommands::hget);
        t.register("hmget", HashCommands::hmget);
        t.register("hgetall", (s, a) -> hgetall(s, a, true, true));
        t.register("hkeys", (s, a) -> hgetall(s, a, true, false));
        t.register("hvals", (s, a) -> hgetall(s, a, false, true));
        t.register("hdel", HashCommands::hdel);
        t.register("hlen", HashCommands::hlen);
        t.register("hexists", HashCommands::hexists);
        t.register("hstrlen", HashCommands::hstrlen);
        t.register("hincrby", HashCommands::hincrby);
        t.register("hincrbyfloat", HashCommands::hincrbyfloat);
        HashScanCommands.register(t);
    }

    // HSET key field value [field value ...] / HMSET key field value [field value ...]
    static void hset(Session s, Args a, boolean hmset) {
        if (a.count() % 2 == 1) {
            throw Errors.wrongArgs(hmset ? "hmset" : "hset");
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            HashValue hv = Hashes.getOrCreate(s, seg, a, h);
            long before = hv.memoryUsage();
            for (int i = 2; i < a.count(); i++) {
                hv.checkLength(a.length(i));
            }
            int created = 0;
            for (int i = 2; i < a.count(); i += 2) {
                if (hv.set(a.buffer(), a.offset(i), a.length(i), a.buffer(), a.offset(i + 1), a.length(i + 1))) {
                    created++;
                }
            }
            seg.adjustMemory(hv.memoryUsage() - before);
            s.dirty((a.count() - 2) / 2);
            s.notify(Notifications.HASH, "hset", a, 1);
            if (hmset) {
                s.out().ok();
            } else {
                s.out().integer(created);
            }
        } finally {
            seg.unlock();
        }
    }

    // HSETNX key field value
    static void hsetnx(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            HashValue hv = Hashes.getOrCreate(s, seg, a, h);
            if (hv.contains(a.buffer(), a.offset(2), a.length(2))) {
                s.out().integer(0);
                return;
            }
            long before = hv.memoryUsage();
            hv.checkLength(a.length(2));
            hv.checkLength(a.length(3));
            hv.set(a.buffer(), a.offset(2), a.length(2), a.buffer(), a.offset(3), a.length(3));
            seg.adjustMemory(hv.memoryUsage() - before);
            s.dirty(1);
            s.notify(Notifications.HASH, "hset", a, 1);
            s.out().integer(1);
        } finally {
            seg.unlock();
        }
    }

    // HGET key field
    static void hget(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            if (e == null || !Hashes.hash(e).visitValue(a.buffer(), a.offset(2), a.length(2), BulkWriter.of(s.out(), false, true))) {
                s.out().nullBulk();
            }
        } finally {
            seg.unlock();
        }
    }

    // HMGET key field [field ...]
    static void hmget(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            HashValue hv = e == null ? null : Hashes.hash(e);
            s.out().array(a.count() - 2);
            BulkWriter w = BulkWriter.of(s.out(), false, true);
            for (int i = 2; i < a.count(); i++) {
                if (hv == null || !hv.visitValue(a.buffer(), a.offset(i), a.length(i), w)) {
                    s.out().nullBulk();
                }
            }
        } finally {
            seg.unlock();
        }
    }

    // HGETALL key / HKEYS key / HVALS key
    static void hgetall(Session s, Args a, boolean keys, boolean values) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            HashValue hv = e == null ? null : Hashes.hash(e);
            int n = hv == null ? 0 : (int) hv.size();
            ReplyBuffer out = s.out();
            if (keys && values) {
                out.map(n);
            } else {
                out.array(n);
            }
            if (hv != null) {
                hv.forEach(BulkWriter.of(out, keys, values));
            }
        } finally {
            seg.unlock();
        }
    }

    // HDEL key field [field ...]
    static void hdel(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            if (e == null) {
                s.out().integer(0);
                return;
            }
            HashValue hv = Hashes.hash(e);
            long before = hv.memoryUsage();
            int deleted = 0;
            for (int i = 2; i < a.count(); i++) {
                if (hv.delete(a.buffer(), a.offset(i), a.length(i))) {
                    deleted++;
                    if (hv.size() == 0) {
                        seg.adjustMemory(hv.memoryUsage() - before);
                        before = hv.memoryUsage();
                        seg.removeEntry(e);
                        break;
                    }
                }
            }
            if (hv.size() > 0) {
                seg.adjustMemory(hv.memoryUsage() - before);
            }
            s.dirty(deleted);
            if (deleted > 0) {
                s.notify(Notifications.HASH, "hdel", a, 1);
                if (hv.size() == 0) {
                    s.notify(Notifications.GENERIC, "del", a, 1);
                }
            }
            s.out().integer(deleted);
        } finally {
            seg.unlock();
        }
    }

    // HLEN key
    static void hlen(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            s.out().integer(e == null ? 0 : Hashes.hash(e).size());
        } finally {
            seg.unlock();
        }
    }

    // HEXISTS key field
    static void hexists(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            s.out().integer(e != null && Hashes.hash(e).contains(a.buffer(), a.offset(2), a.length(2)) ? 1 : 0);
        } finally {
            seg.unlock();
        }
    }

    // HSTRLEN key field
    static void hstrlen(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            s.out().integer(e == null ? 0 : Hashes.hash(e).valueLength(a.buffer(), a.offset(2), a.length(2)));
        } finally {
            seg.unlock();
        }
    }

    // HINCRBY key field increment
    static void hincrby(Session s, Args a) {
        long incr = NumberArgs.parseLong(a, 3);
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            HashValue hv = Hashes.getOrCreate(s, seg, a, h);
            byte[] cur = hv.get(a.buffer(), a.offset(2), a.length(2));
            long value = 0;
            if (cur != null) {
                try {
                    value = Numbers.parseLong(cur);
                } catch (NumberFormatException ex) {
                    throw HASH_NOT_INTEGER;
                }
            }
            if ((incr < 0 && value < 0 && incr < Long.MIN_VALUE - value)
                    || (incr > 0 && value > 0 && incr > Long.MAX_VALUE - value)) {
                throw Errors.OVERFLOW;
            }
            value += incr;
            long before = hv.memoryUsage();
            hv.set(a.buffer(), a.offset(2), a.length(2), Numbers.toBytes(value));
            seg.adjustMemory(hv.memoryUsage() - before);
            s.dirty(1);
            s.notify(Notifications.HASH, "hincrby", a, 1);
            s.out().integer(value);
        } finally {
            seg.unlock();
        }
    }

    // HINCRBYFLOAT key field increment
    static void hincrbyfloat(Session s, Args a) {
        BigDecimal incr;
        try {
            incr = LongDouble.parse(a.buffer(), a.offset(3), a.length(3));
        } catch (NumberFormatException ex) {
            throw Errors.NOT_FLOAT;
        }
        if (incr == null) {
            throw NAN_OR_INF;
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            HashValue hv = Hashes.getOrCreate(s, seg, a, h);
            byte[] cur = hv.get(a.buffer(), a.offset(2), a.length(2));
            BigDecimal value = BigDecimal.ZERO;
            if (cur != null) {
                try {
                    value = LongDouble.parse(cur, 0, cur.length);
                } catch (NumberFormatException ex) {
                    throw HASH_NOT_FLOAT;
                }
                if (value == null) {
                    throw WOULD_BE_NAN;
                }
            }
            BigDecimal sum = LongDouble.add(value, incr);
            if (sum == null) {
                throw WOULD_BE_NAN;
            }
            byte[] text = LongDouble.formatHuman(sum).getBytes(StandardCharsets.ISO_8859_1);
            long before = hv.memoryUsage();
            hv.set(a.buffer(), a.offset(2), a.length(2), text);
            seg.adjustMemory(hv.memoryUsage() - before);
            s.dirty(1);
            s.notify(Notifications.HASH, "hincrbyfloat", a, 1);
            s.out().bulk(text);
        } finally {
            seg.unlock();
        }
    }
}
