package dev.spinel.server.commands.set;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.commands.key.SetKeys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.types.SetLimits;
import dev.spinel.store.types.SetValue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Set algebra over several keys (Redis's sinterGenericCommand and sunionDiffGenericCommand): SMEMBERS,
 * SINTER, SINTERCARD, SINTERSTORE, SUNION, SUNIONSTORE, SDIFF, SDIFFSTORE. All stripes involved are
 * locked together (in global order) so each command is atomic. Results are built the way Redis builds
 * them (a set that starts as an intset), so replies come in the same order whenever the result is an
 * intset.
 */
final class SetAlgebraCommands {
    private static final RedisError NUMKEYS = new RedisError("ERR numkeys should be greater than 0");
    private static final RedisError TOO_MANY_KEYS = new RedisError("ERR Number of keys can't be greater than number of args");
    private static final RedisError LIMIT_NEGATIVE = new RedisError("ERR LIMIT can't be negative");
    private static final Comparator<SetValue> BY_SIZE = Comparator.comparingLong(SetValue::size);

    private enum Op { UNION, DIFF }

    private SetAlgebraCommands() {
    }

    static void register(CommandTable t, SetLimits limits) {
        t.register("smembers", (s, a) -> inter(s, a, 1, 2, -1, false, 0, limits));
        t.register("sinter", (s, a) -> inter(s, a, 1, a.count(), -1, false, 0, limits));
        t.register("sinterstore", (s, a) -> inter(s, a, 2, a.count(), 1, false, 0, limits));
        t.register("sintercard", SetAlgebraCommands::sintercard);
        t.register("sunion", (s, a) -> unionDiff(s, a, 1, -1, Op.UNION, limits));
        t.register("sunionstore", (s, a) -> unionDiff(s, a, 2, 1, Op.UNION, limits));
        t.register("sdiff", (s, a) -> unionDiff(s, a, 1, -1, Op.DIFF, limits));
        t.register("sdiffstore", (s, a) -> unionDiff(s, a, 2, 1, Op.DIFF, limits));
    }

    // SINTERCARD numkeys key [key ...] [LIMIT limit]
    static void sintercard(Session s, Args a) {
        long numkeys;
        try {
            numkeys = a.parseLong(1);
        } catch (NumberFormatException e) {
            throw NUMKEYS;
        }
        if (numkeys < 1) {
            throw NUMKEYS;
        }
        if (numkeys > a.count() - 2) {
            throw TOO_MANY_KEYS;
        }
        int end = 2 + (int) numkeys;
        long limit = 0;
        for (int i = end; i < a.count(); i++) {
            if (a.is(i, "LIMIT") && i + 1 < a.count()) {
                i++;
                try {
                    limit = a.parseLong(i);
                } catch (NumberFormatException e) {
                    throw LIMIT_NEGATIVE;
                }
                if (limit < 0) {
                    throw LIMIT_NEGATIVE;
                }
            } else {
                throw Errors.SYNTAX;
            }
        }
        inter(s, a, 2, end, -1, true, limit, null);
    }

    /** SINTER and friends: keys [from, to), destination argument {@code dst} (-1: reply instead). */
    static void inter(Session s, Args a, int from, int to, int dst, boolean cardinalityOnly, long limit,
                      SetLimits limits) {
        try {
            SetKeys.lockKeys(s, a, from, to, dst);
            int n = to - from;
            SetValue[] sets = new SetValue[n];
            boolean empty = false;
            for (int i = 0; i < n; i++) {
                Entry e = SetKeys.read(s, a, from + i); // a read lookup also for the STORE forms, as Redis 7.0
                if (e == null) {
                    empty = true;
                    continue;
                }
                sets[i] = SetKeys.set(e);
            }
            ReplyBuffer out = s.out();
            if (empty) {
                if (dst >= 0) {
                    if (SetKeys.storeResult(s, a, dst, null, Notifications.SET, "sinterstore")) {
                        s.dirty(1);
                    }
                    out.integer(0);
                } else if (cardinalityOnly) {
                    out.integer(0);
                } else {
                    out.set(0);
                }
                return;
            }
            Arrays.sort(sets, BY_SIZE); // stable, as glibc's qsort (a merge sort) behaves here
            SetValue first = sets[0];
            long card = 0;
            List<byte[]> found = dst < 0 && !cardinalityOnly ? new ArrayList<>() : null;
            SetValue stored = dst >= 0 ? SetValue.createIntset() : null;
            for (int p = first.first(); p >= 0; p = first.next(p)) {
                byte[] m = first.member(p);
                boolean inAll = true;
                for (int j = 1; j < n && inAll; j++) {
                    if (sets[j] != first && !sets[j].contains(m)) {
                        inAll = false;
                    }
                }
                if (!inAll) {
                    continue;
                }
                card++;
                if (found != null) {
                    found.add(m);
                } else if (stored != null) {
                    stored.add(m, limits);
                } else if (limit > 0 && card >= limit) {
                    break;
                }
            }
            if (cardinalityOnly) {
                out.integer(card);
            } else if (stored != null) {
                if (SetKeys.storeResult(s, a, dst, stored, Notifications.SET, "sinterstore")) {
                    s.dirty(1); // an empty result over a missing destination changes nothing (no WATCH signal)
                }
                out.integer(stored.size());
            } else {
                out.set(found.size());
                for (byte[] m : found) {
                    out.bulk(m);
                }
            }
        } finally {
            s.locks().unlock();
        }
    }

    /** SUNION/SDIFF and their STORE forms: keys from {@code from} to the end. */
    private static void unionDiff(Session s, Args a, int from, int dst, Op op, SetLimits limits) {
        try {
            SetKeys.lockKeys(s, a, from, a.count(), dst);
            int n = a.count() - from;
            SetValue[] sets = new SetValue[n];
            for (int i = 0; i < n; i++) {
                sets[i] = SetKeys.set(SetKeys.read(s, a, from + i)); // a read lookup also for the STORE forms
            }
            SetValue result = SetValue.createIntset();
            if (op == Op.UNION) {
                for (SetValue set : sets) {
                    if (set != null) {
                        for (int p = set.first(); p >= 0; p = set.next(p)) {
                            result.add(set.member(p), limits);
                        }
                    }
                }
            } else if (sets[0] != null) {
                SetValue first = sets[0];
                for (int p = first.first(); p >= 0; p = first.next(p)) {
                    byte[] m = first.member(p);
                    boolean elsewhere = false;
                    for (int j = 1; j < n && !elsewhere; j++) {
                        elsewhere = sets[j] == first || (sets[j] != null && sets[j].contains(m));
                    }
                    if (!elsewhere) {
                        result.add(m, limits);
                    }
                }
            }
            ReplyBuffer out = s.out();
            if (dst >= 0) {
                if (SetKeys.storeResult(s, a, dst, result, Notifications.SET, op == Op.UNION ? "sunionstore" : "sdiffstore")) {
                    s.dirty(1); // an empty result over a missing destination changes nothing (no WATCH signal)
                }
                out.integer(result.size());
                return;
            }
            out.set((int) result.size());
            for (int p = result.first(); p >= 0; p = result.next(p)) {
                SetCommands.replyMember(out, result, p);
            }
            Keys.serverDeleted(s, result); // Redis frees the temporary set as it frees a deleted key's value
        } finally {
            s.locks().unlock();
        }
    }
}
