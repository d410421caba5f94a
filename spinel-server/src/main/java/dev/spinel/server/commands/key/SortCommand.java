package dev.spinel.server.commands.key;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.protocol.Strtod;
import dev.spinel.server.acl.Acl;
import dev.spinel.server.commands.common.PartialSort;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Segment;
import dev.spinel.store.TypedValue;
import dev.spinel.store.types.HashValue;
import dev.spinel.store.types.ListValue;
import dev.spinel.store.types.SetValue;
import dev.spinel.store.types.ZSetValue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * SORT and SORT_RO (Redis 7.0's sortCommandGeneric): lists, sets and sorted sets, numeric or ALPHA,
 * BY pattern (with {@code nosort} or any pattern without '*' keeping the native order, and
 * {@code key->field} hash dereferences), GET patterns (with {@code #}), LIMIT, ASC/DESC and STORE.
 *
 * <p>Atomicity: without patterns only the key's (and the destination's) stripes are held; a BY or GET
 * pattern may read any key, so then every stripe of the database is held for the command.
 */
public final class SortCommand {
    private static final RedisError NOT_DOUBLE = new RedisError("ERR One or more scores can't be converted into double");
    private static final byte[] EMPTY = new byte[0];

    private SortCommand() {
    }

    /**
     * What a pattern look-up found: {@code bytes[0, length)}, read in place (a string grown in place has a longer
     * array; it is not copied, as Redis does not copy). Valid while the database's stripes are held.
     */
    private static final class Found {
        byte[] bytes;
        int length;
    }

    public static void register(CommandTable t) {
        t.register("sort", (s, a) -> sort(s, a, false));
        t.register("sort_ro", (s, a) -> sort(s, a, true));
    }

    /** One element and its weight (Redis's redisSortObject). */
    private static final class Item {
        final byte[] value;
        double score;
        byte[] cmp; // its first cmpLength bytes: read in place
        int cmpLength;

        Item(byte[] value) {
            this.value = value;
        }
    }

    // SORT key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC | DESC] [ALPHA] [STORE destination]
    // SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC | DESC] [ALPHA]
    static void sort(Session s, Args a, boolean readonly) {
        boolean desc = false;
        boolean alpha = false;
        boolean dontsort = false;
        long limitStart = 0;
        long limitCount = -1;
        int storeArg = -1;
        byte[] sortBy = null;
        List<byte[]> gets = new ArrayList<>();
        for (int j = 2; j < a.count(); j++) {
            int left = a.count() - j - 1;
            if (a.is(j, "ASC")) {
                desc = false;
            } else if (a.is(j, "DESC")) {
                desc = true;
            } else if (a.is(j, "ALPHA")) {
                alpha = true;
            } else if (a.is(j, "LIMIT") && left >= 2) {
                try {
                    limitStart = a.parseLong(j + 1);
                    limitCount = a.parseLong(j + 2);
                } catch (NumberFormatException e) {
                    throw Errors.NOT_INTEGER;
                }
                j += 2;
            } else if (!readonly && a.is(j, "STORE") && left >= 1) {
                storeArg = j + 1;
                j++;
            } else if (a.is(j, "BY") && left >= 1) {
                sortBy = a.copy(j + 1);
                dontsort = indexOf(sortBy, (byte) '*', 0) < 0;
                if (!dontsort && !Acl.fullKeyAccess(s.user().rules())) {
                    // a pattern reads keys the ACL cannot check in advance (Redis 7.0)
                    throw new RedisError("ERR BY option of SORT denied due to insufficient ACL permissions.");
                }
                j++;
            } else if (a.is(j, "GET") && left >= 1) {
                if (!Acl.fullKeyAccess(s.user().rules())) {
                    throw new RedisError("ERR GET option of SORT denied due to insufficient ACL permissions.");
                }
                gets.add(a.copy(j + 1));
                j++;
            } else {
                throw Errors.SYNTAX;
            }
        }
        boolean patterns = (sortBy != null && !dontsort) || !gets.isEmpty();
        Database db = s.db();
        if (patterns) {
            db.lockAll();
        } else {
            s.locks().add(db, a.buffer(), a.offset(1), a.length(1));
            if (storeArg >= 0) {
                s.locks().add(db, a.buffer(), a.offset(storeArg), a.length(storeArg));
            }
            s.locks().lock();
        }
        try {
            run(s, a, db, desc, alpha, dontsort, sortBy, gets, limitStart, limitCount, storeArg);
        } finally {
            if (patterns) {
                db.unlockAll();
            } else {
                s.locks().unlock();
            }
        }
    }

    private static void run(Session s, Args a, Database db, boolean desc, boolean alpha, boolean dontsort,
            byte[] sortBy, List<byte[]> gets, long limitStart, long limitCount, int storeArg) {
        int h = Keys.hash(a, 1);
        Entry e = Keys.read(s, db.segment(h), a, 1, h);
        if (e != null && e.isString()) {
            throw Errors.WRONGTYPE; // before value(), which would copy a grown string
        }
        Object v = e == null ? null : e.value();
        if (v != null && !(v instanceof ListValue) && !(v instanceof SetValue) && !(v instanceof ZSetValue)) {
            throw Errors.WRONGTYPE;
        }
        if (v instanceof ZSetValue z && z.isListpack()) {
            // Redis 7.0 converts a sorted set to its skip list encoding for SORT, for good
            long before = z.memoryUsage();
            z.convertToSkiplist();
            db.segment(h).adjustMemory(z.memoryUsage() - before);
        }
        if (dontsort && v instanceof SetValue && (storeArg >= 0 || s.script())) {
            dontsort = false; // a stored or scripted set result must not depend on the set's internal order
            alpha = true;
            sortBy = null;
        }
        long vectorLen = v == null ? 0 : ((TypedValue) v).size();
        long start = Math.min(Math.max(limitStart, 0), vectorLen);
        long count = Math.min(Math.max(limitCount, -1), vectorLen);
        long end = count < 0 ? vectorLen - 1 : start + count - 1;
        if (start >= vectorLen) {
            start = vectorLen - 1;
            end = vectorLen - 2;
        }
        if (end >= vectorLen) {
            end = vectorLen - 1;
        }
        List<Item> items = new ArrayList<>();
        if (v instanceof ListValue l && dontsort) {
            if (end >= start) {
                int len = l.length();
                int from = desc ? (int) (len - 1 - end) : (int) start;
                int to = desc ? (int) (len - 1 - start) : (int) end;
                l.forEach(from, to, desc, (buf, off, n) -> {
                    items.add(new Item(Arrays.copyOfRange(buf, off, off + n)));
                    return true;
                });
            }
            end -= start;
            start = 0;
        } else if (v instanceof ZSetValue z && dontsort) {
            if (end >= start) {
                long size = z.size();
                ZSetValue.Cursor c = z.cursor(desc ? size - 1 - start : start);
                for (long k = start; k <= end; k++) {
                    items.add(new Item(Arrays.copyOfRange(c.memberArray(), c.memberOffset(),
                            c.memberOffset() + c.memberLength())));
                    if (desc) {
                        c.prev();
                    } else {
                        c.next();
                    }
                }
            }
            end -= start;
            start = 0;
        } else if (v instanceof ListValue l) {
            l.forEach(0, l.length() - 1, false, (buf, off, n) -> {
                items.add(new Item(Arrays.copyOfRange(buf, off, off + n)));
                return true;
            });
        } else if (v instanceof SetValue set) {
            for (int p = set.first(); p >= 0; p = set.next(p)) {
                items.add(new Item(set.member(p)));
            }
        } else if (v instanceof ZSetValue z) {
            if (z.size() > 0) {
                ZSetValue.Cursor c = z.cursor(0);
                for (long k = 0; k < z.size(); k++) {
                    items.add(new Item(Arrays.copyOfRange(c.memberArray(), c.memberOffset(),
                            c.memberOffset() + c.memberLength())));
                    c.next();
                }
            }
        }
        long now = s.now();
        Found found = new Found();
        if (!dontsort) {
            boolean badScore = false;
            for (Item it : items) {
                byte[] w = it.value;
                int wlen = w.length;
                if (sortBy != null) {
                    if (!lookup(db, sortBy, it.value, now, found)) {
                        continue;
                    }
                    w = found.bytes;
                    wlen = found.length;
                }
                if (alpha) {
                    if (sortBy != null) {
                        it.cmp = w;
                        it.cmpLength = wlen;
                    }
                } else {
                    try {
                        it.score = Strtod.parseForSort(w, 0, wlen);
                    } catch (Strtod.Invalid ex) {
                        badScore = true;
                    }
                }
            }
            if (badScore) {
                throw NOT_DOUBLE;
            }
            final boolean byPattern = sortBy != null;
            final boolean isAlpha = alpha;
            final int sign = desc ? -1 : 1;
            Comparator<Item> order = (x, y) -> sign * compare(x, y, isAlpha, byPattern);
            if (byPattern && (start != 0 || end != vectorLen - 1)) {
                // Redis's pqsort, not stable: which of the ties (ALPHA BY with equal or missing weights)
                // come first and make the cut depends on its exact steps
                Item[] arr = items.toArray(new Item[0]);
                PartialSort.sort(arr, order, (int) start, (int) end);
                items.clear();
                items.addAll(Arrays.asList(arr));
            } else {
                items.sort(order); // glibc's qsort is a merge sort: stable, as List.sort
            }
        }
        int outputLen = end >= start ? (int) (end - start + 1) : 0;
        if (storeArg < 0) {
            ReplyBuffer out = s.out();
            out.array(gets.isEmpty() ? outputLen : outputLen * gets.size());
            for (int k = 0; k < outputLen; k++) {
                Item it = items.get((int) start + k);
                if (gets.isEmpty()) {
                    out.bulk(it.value);
                }
                for (byte[] g : gets) {
                    if (lookup(db, g, it.value, now, found)) {
                        out.bulk(found.bytes, 0, found.length);
                    } else {
                        out.nullBulk();
                    }
                }
            }
            return;
        }
        ListValue result = new ListValue(s.engine().config().collectionSettings);
        for (int k = 0; k < outputLen; k++) {
            Item it = items.get((int) start + k);
            if (gets.isEmpty()) {
                result.push(false, it.value);
            }
            for (byte[] g : gets) {
                if (lookup(db, g, it.value, now, found)) {
                    result.push(false, found.bytes, 0, found.length); // copies the bytes
                } else {
                    result.push(false, EMPTY);
                }
            }
        }
        int stored = result.length();
        int dh = Keys.hash(a, storeArg);
        Segment dseg = db.segment(dh);
        Entry old = Keys.write(s, dseg, a, storeArg, dh);
        if (stored > 0) {
            if (old == null) {
                dseg.insert(a.copy(storeArg), dh, result, -1);
            } else {
                old = dseg.replaceValue(old, result);
                dseg.setExpire(old, -1);
            }
            s.engine().blocking().signal(db, a.buffer(), a.offset(storeArg), a.length(storeArg));
            s.dirty(stored);
            s.notify(Notifications.LIST, "sortstore", a, storeArg);
        } else if (old != null) {
            dseg.removeEntry(old);
            Keys.serverDeleted(s, old.value());
            s.dirty(1);
            s.notify(Notifications.GENERIC, "del", a, storeArg);
        }
        s.out().integer(stored);
    }

    /** Redis's sortCompare (before DESC is applied). */
    private static int compare(Item x, Item y, boolean alpha, boolean byPattern) {
        if (!alpha) {
            int c = Double.compare(x.score, y.score);
            if (x.score == y.score) {
                c = 0; // -0.0 and 0.0 are equal scores in C
            }
            return c != 0 ? c : Arrays.compareUnsigned(x.value, y.value);
        }
        if (byPattern) {
            if (x.cmp == null || y.cmp == null) {
                return x.cmp == y.cmp ? 0 : x.cmp == null ? -1 : 1;
            }
            return Arrays.compareUnsigned(x.cmp, 0, x.cmpLength, y.cmp, 0, y.cmpLength);
        }
        return Arrays.compareUnsigned(x.value, y.value);
    }

    /**
     * Redis's lookupKeyByPattern: {@code #} is the element itself; the first '*' is replaced by the
     * element; {@code ->field} after it reads a hash field. False when there is no '*', the key is absent
     * or of another type (string for a plain pattern, hash for a dereference), or the field is absent;
     * else the value is in {@code found}.
     */
    private static boolean lookup(Database db, byte[] pattern, byte[] subst, long now, Found found) {
        if (pattern.length == 1 && pattern[0] == '#') {
            return found(found, subst);
        }
        int star = indexOf(pattern, (byte) '*', 0);
        if (star < 0) {
            return false;
        }
        int arrow = -1;
        for (int i = star + 1; i + 1 < pattern.length; i++) {
            if (pattern[i] == '-' && pattern[i + 1] == '>') {
                arrow = i;
                break;
            }
        }
        if (arrow >= 0 && arrow + 2 == pattern.length) {
            arrow = -1; // "->" with nothing after it is part of the key name
        }
        int keyEnd = arrow >= 0 ? arrow : pattern.length;
        byte[] key = new byte[star + subst.length + (keyEnd - star - 1)];
        System.arraycopy(pattern, 0, key, 0, star);
        System.arraycopy(subst, 0, key, star, subst.length);
        System.arraycopy(pattern, star + 1, key, star + subst.length, keyEnd - star - 1);
        int h = KeyHash.hash(key);
        Entry e = db.segment(h).get(key, 0, key.length, h, now);
        if (e == null) {
            return false;
        }
        if (arrow >= 0) {
            if (e.isString() || !(e.value() instanceof HashValue hv)) {
                return false;
            }
            byte[] field = hv.get(pattern, arrow + 2, pattern.length - arrow - 2);
            return field != null && found(found, field);
        }
        if (!e.isString()) {
            return false;
        }
        int len = e.stringLength(); // a string held in the entry: a new array, as an Item may keep it (ALPHA BY)
        found.bytes = e.stringBytes(len <= Entry.MAX_INLINE_STRING ? new byte[Entry.MAX_INLINE_STRING] : null);
        found.length = len;
        return true;
    }

    private static boolean found(Found found, byte[] b) {
        found.bytes = b;
        found.length = b.length;
        return true;
    }

    private static int indexOf(byte[] b, byte c, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }
}
