package dev.spinel.server.commands.hll;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.commands.key.SetKeys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.types.HyperLogLog;
import dev.spinel.store.types.HllSelfTest;

import java.nio.charset.StandardCharsets;

/**
 * HyperLogLog commands (Redis's hyperloglog.c): PFADD, PFCOUNT, PFMERGE, PFDEBUG, PFSELFTEST. The
 * values are plain strings in Redis's representation ({@link HyperLogLog}); a changed value is stored as a new
 * array. PFCOUNT of one key refreshes the cardinality cached in the value: a write (dirty, logged as
 * received, WATCH and tracking invalidated), as in Redis; PFCOUNT of several keys only reads.
 *
 * <p>Thread-safety: stateless; every command holds its keys' stripe locks for its whole run.
 */
public final class HyperLogLogCommands {
    private HyperLogLogCommands() {
    }

    static final RedisError NOT_HLL = new RedisError("WRONGTYPE Key is not a valid HyperLogLog string value.");
    static final RedisError CORRUPTED = new RedisError("INVALIDOBJ Corrupted HLL object detected");
    static final RedisError NO_KEY = new RedisError("ERR The specified key does not exist");
    static final RedisError NOT_SPARSE = new RedisError("ERR HLL encoding is not sparse");

    public static void register(CommandTable t) {
        t.register("pfadd", HyperLogLogCommands::pfadd);
        t.register("pfcount", HyperLogLogCommands::pfcount);
        t.register("pfmerge", HyperLogLogCommands::pfmerge);
        t.register("pfdebug", HyperLogLogCommands::pfdebug);
        t.register("pfselftest", HyperLogLogCommands::pfselftest);
    }

    /** The HLL held by an entry: WRONGTYPE for another type or a string that is not an HLL. */
    private static HyperLogLog hll(Entry e) {
        byte[] v = Keys.string(e);
        if (!HyperLogLog.isValid(v)) {
            throw NOT_HLL;
        }
        return HyperLogLog.of(v);
    }

    private static long sparseMaxBytes(Session s) {
        return s.engine().config().hllSparseMaxBytes.value();
    }

    // PFADD key [element [element ...]]
    static void pfadd(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            HyperLogLog hll;
            int updated = 0;
            if (e == null) {
                hll = HyperLogLog.create();
                e = seg.insert(a.copy(1), h, hll.bytes(), -1);
                updated++;
            } else {
                hll = hll(e);
            }
            e.stringMark(Entry.STRING_RAW); // an HLL is a raw string (createHLLObject, or dbUnshareStringValue)
            long max = sparseMaxBytes(s);
            for (int j = 2; j < a.count(); j++) {
                int r = hll.add(a.buffer(), a.offset(j), a.length(j), max);
                if (r < 0) {
                    e = seg.replaceValue(e, hll.bytes()); // as Redis: the registers set so far stay set
                    e.stringMark(Entry.STRING_RAW);
                    throw CORRUPTED;
                }
                updated += r;
            }
            if (updated > 0) {
                hll.invalidateCache();
                e = seg.replaceValue(e, hll.bytes());
                e.stringMark(Entry.STRING_RAW);
                s.dirty(updated);
                s.notify(Notifications.STRING, "pfadd", a, 1);
            }
            s.out().integer(updated > 0 ? 1 : 0);
        } finally {
            seg.unlock();
        }
    }

    // PFCOUNT key [key ...]
    static void pfcount(Session s, Args a) {
        if (a.count() > 2) {
            pfcountUnion(s, a);
            return;
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            if (e == null) {
                s.out().integer(0);
                return;
            }
            HyperLogLog hll = hll(e);
            long card;
            if (hll.cacheValid()) {
                card = hll.cachedCard();
            } else {
                card = hll.count();
                if (card < 0) {
                    throw CORRUPTED;
                }
                hll.setCachedCard(card);
                int mark = e.stringMark(); // Redis updates the cached cardinality in place: same object
                e = seg.replaceValue(e, hll.bytes());
                e.stringMark(mark);
                s.dirty(1);
            }
            s.out().integer(card);
        } finally {
            seg.unlock();
        }
    }

    /** PFCOUNT of several keys: the estimate of their union, merged into a temporary, stores nothing. */
    private static void pfcountUnion(Session s, Args a) {
        byte[] max = new byte[HyperLogLog.REGISTERS];
        SetKeys.lockKeys(s, a, 1, a.count(), -1);
        try {
            for (int j = 1; j < a.count(); j++) {
                Entry e = SetKeys.read(s, a, j);
                if (e != null && !hll(e).mergeInto(max)) {
                    throw CORRUPTED;
                }
            }
        } finally {
            s.locks().unlock();
        }
        s.out().integer(HyperLogLog.countRaw(max));
    }

    // PFMERGE destkey [sourcekey [sourcekey ...]]
    static void pfmerge(Session s, Args a) {
        byte[] max = new byte[HyperLogLog.REGISTERS];
        boolean useDense = false;
        SetKeys.lockKeys(s, a, 1, a.count(), -1);
        try {
            for (int j = 1; j < a.count(); j++) { // the destination is one of the sources
                Entry e = SetKeys.read(s, a, j);
                if (e == null) {
                    continue;
                }
                HyperLogLog src = hll(e);
                useDense |= src.encoding() == HyperLogLog.DENSE;
                if (!src.mergeInto(max)) {
                    throw CORRUPTED;
                }
            }
            int h = Keys.hash(a, 1);
            Segment seg = s.db().segment(h);
            Entry e = Keys.write(s, seg, a, 1, h);
            HyperLogLog dst = e == null ? HyperLogLog.create() : HyperLogLog.of(Keys.string(e));
            if (useDense && !dst.toDense()) {
                throw CORRUPTED; // as in Redis, a new empty destination is not created then
            }
            dst.setAll(max, sparseMaxBytes(s));
            dst.invalidateCache();
            if (e == null) {
                e = seg.insert(a.copy(1), h, dst.bytes(), -1);
            } else {
                e = seg.replaceValue(e, dst.bytes());
            }
            e.stringMark(Entry.STRING_RAW); // createHLLObject, or dbUnshareStringValue: raw
            s.dirty(1);
            s.notify(Notifications.STRING, "pfadd", a, 1); // Redis announces PFMERGE as pfadd
            s.out().ok();
        } finally {
            s.locks().unlock();
        }
    }

    // PFSELFTEST (seconds of work on the calling loop, as in Redis: an admin command)
    static void pfselftest(Session s, Args a) {
        String failure = HllSelfTest.run(sparseMaxBytes(s));
        if (failure != null) {
            throw new RedisError(failure);
        }
        s.out().ok();
    }

    // PFDEBUG <GETREG | DECODE | ENCODING | TODENSE> key
    static void pfdebug(Session s, Args a) {
        int h = Keys.hash(a, 2);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 2, h);
            if (e == null) {
                throw NO_KEY;
            }
            HyperLogLog hll = hll(e);
            String sub = a.cString(1); // quoted as Redis's %s
            boolean known = a.is(1, "GETREG") || a.is(1, "DECODE") || a.is(1, "ENCODING") || a.is(1, "TODENSE");
            if (!known) {
                throw new RedisError("ERR Unknown PFDEBUG subcommand '" + sub + "'");
            }
            if (a.count() != 3) {
                throw new RedisError("ERR Wrong number of arguments for the '" + sub + "' subcommand");
            }
            ReplyBuffer out = s.out();
            if (a.is(1, "GETREG") || a.is(1, "TODENSE")) {
                boolean converted = false;
                if (hll.encoding() == HyperLogLog.SPARSE) {
                    if (!hll.toDense()) {
                        throw CORRUPTED;
                    }
                    e = seg.replaceValue(e, hll.bytes());
                    e.stringMark(Entry.STRING_RAW);
                    s.dirty(1); // as Redis: forces the propagation of the encoding change
                    converted = true;
                }
                if (a.is(1, "TODENSE")) {
                    out.integer(converted ? 1 : 0);
                } else {
                    out.array(HyperLogLog.REGISTERS);
                    for (int j = 0; j < HyperLogLog.REGISTERS; j++) {
                        out.integer(hll.register(j));
                    }
                }
            } else if (a.is(1, "DECODE")) {
                if (hll.encoding() != HyperLogLog.SPARSE) {
                    throw NOT_SPARSE;
                }
                out.bulk(hll.decode().getBytes(StandardCharsets.US_ASCII));
            } else {
                out.simple(hll.encoding() == HyperLogLog.DENSE ? "dense" : "sparse");
            }
        } finally {
            seg.unlock();
        }
    }
}
