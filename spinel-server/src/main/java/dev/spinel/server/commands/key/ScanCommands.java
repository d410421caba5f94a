package dev.spinel.server.commands.key;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.Glob;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Segment;

import java.util.ArrayList;
import java.util.List;

/**
 * Keyspace iteration (Redis's db.c): KEYS and SCAN.
 *
 * <p>SCAN's cursor comes from {@link Database#scan}: the stripe index in the high bits and that
 * stripe's reverse-binary bucket cursor below, so a full iteration returns every key present from
 * start to end at least once, whatever is written or resized in between. Expired keys are not
 * returned; SCAN deletes those it meets (as Redis does), KEYS only skips them (as Redis 7.0 does).
 *
 * <p>Thread-safety: stateless. KEYS holds every stripe of the database while it collects (atomic, as
 * in Redis); one SCAN call holds one stripe at a time.
 */
final class ScanCommands {
    private static final RedisError INVALID_CURSOR = new RedisError("ERR invalid cursor");

    private ScanCommands() {
    }

    static void register(CommandTable t) {
        t.register("keys", ScanCommands::keys);
        t.register("scan", ScanCommands::scan);
    }

    // KEYS pattern
    static void keys(Session s, Args a) {
        byte[] pattern = a.copy(1);
        boolean all = pattern.length == 1 && pattern[0] == '*';
        long now = s.lookupNow();
        List<byte[]> found = new ArrayList<>();
        Database db = s.db();
        db.lockAll();
        try {
            for (int i = 0; i < Database.SEGMENTS; i++) {
                db.segmentAt(i).forEach(e -> {
                    if (!isExpired(e, now) && (all || Glob.matches(pattern, e.key(), false))) {
                        found.add(e.key());
                    }
                });
            }
        } finally {
            db.unlockAll();
        }
        writeKeys(s.out(), found);
    }

    // SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]
    static void scan(Session s, Args a) {
        long cursor = parseCursor(a, 1);
        long count = 10;
        byte[] pattern = null;
        String type = null;
        for (int i = 2; i < a.count(); i += 2) {
            boolean hasValue = i + 1 < a.count();
            if (a.is(i, "COUNT") && hasValue) {
                try {
                    count = a.parseLong(i + 1);
                } catch (NumberFormatException e) {
                    throw Errors.NOT_INTEGER;
                }
                if (count < 1) {
                    throw Errors.SYNTAX;
                }
            } else if (a.is(i, "MATCH") && hasValue) {
                byte[] p = a.copy(i + 1);
                pattern = p.length == 1 && p[0] == '*' ? null : p;
            } else if (a.is(i, "TYPE") && hasValue) {
                type = a.string(i + 1);
            } else {
                throw Errors.SYNTAX;
            }
        }
        long now = s.lookupNow();
        List<byte[]> found = new ArrayList<>();
        List<byte[]> expiredSeen = new ArrayList<>();
        byte[] match = pattern;
        String wantType = type;
        long[] typeChecks = new long[2]; // hits, misses: the type filter is a counted lookup in Redis
        long next = s.db().scan(cursor, (int) Math.min(count, Integer.MAX_VALUE), e -> {
            if (match != null && !Glob.matches(match, e.key(), false)) {
                return;
            }
            boolean expired = isExpired(e, now);
            if (expired) {
                expiredSeen.add(e.key()); // deleted below: the table cannot change during the visit
            }
            if (wantType != null) {
                typeChecks[expired ? 1 : 0]++;
                if (expired || !wantType.equalsIgnoreCase(e.type().redisName())) {
                    return;
                }
            }
            if (!expired) {
                found.add(e.key());
            }
        });
        deleteIfExpired(s.db(), expiredSeen, now);
        s.engine().stats().keyspaceHits.add(typeChecks[0]);
        s.engine().stats().keyspaceMisses.add(typeChecks[1]);
        ReplyBuffer out = s.out();
        out.array(2);
        out.bulk(Long.toUnsignedString(next));
        writeKeys(out, found);
    }

    /** Lazy expiry of the expired keys a SCAN step met, as Redis's SCAN does (one stripe at a time). */
    private static void deleteIfExpired(Database db, List<byte[]> keys, long now) {
        for (byte[] k : keys) {
            int h = KeyHash.hash(k);
            Segment seg = db.segment(h);
            seg.lock();
            try {
                seg.read(k, 0, k.length, h, now); // deletes the entry only if it is (still) expired (not on a replica)
            } finally {
                seg.unlock();
            }
        }
    }

    private static boolean isExpired(Entry e, long now) {
        long at = e.expireAt();
        return at >= 0 && at <= now;
    }

    private static void writeKeys(ReplyBuffer out, List<byte[]> keys) {
        out.array(keys.size());
        for (byte[] k : keys) {
            out.bulk(k);
        }
    }

    /**
     * Parses a cursor as Redis does with {@code strtoul}: optional sign (a negative value wraps around),
     * decimal digits, nothing else; an empty string is 0; a leading space or an overflow is invalid.
     */
    static long parseCursor(Args a, int i) {
        int len = a.length(i);
        int p = 0;
        if (len == 0) {
            return 0;
        }
        byte first = a.byteAt(i, 0);
        boolean negative = false;
        if (first == '-' || first == '+') {
            negative = first == '-';
            p++;
        }
        if (p == len) {
            throw INVALID_CURSOR;
        }
        long v = 0;
        for (; p < len; p++) {
            int d = a.byteAt(i, p) - '0';
            if (d < 0 || d > 9) {
                throw INVALID_CURSOR;
            }
            // unsigned overflow check: v * 10 + d must stay below 2^64
            if (Long.compareUnsigned(v, Long.divideUnsigned(-1L, 10)) > 0) {
                throw INVALID_CURSOR;
            }
            long t = v * 10;
            if (Long.compareUnsigned(t + d, t) < 0) {
                throw INVALID_CURSOR;
            }
            v = t + d;
        }
        return negative ? -v : v;
    }
}
