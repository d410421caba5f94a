package dev.spinel.server.commands.bitmap;

import dev.spinel.protocol.Args;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.commands.string.StringRangeCommands;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.StripeLocks;

import java.util.Arrays;

/**
 * BITOP (Redis's bitopCommand): AND, OR, XOR of any number of strings, NOT of one; missing keys and
 * the ends of shorter strings read as zero bytes. The result, as long as the longest source, replaces
 * the destination (whatever its type, its time to live dropped); an empty result deletes it.
 *
 * <p>Thread-safety: stateless; holds the stripes of the destination and every source throughout, so the sources
 * are read in place (a grown string is not copied first).
 */
final class BitopCommand {
    private BitopCommand() {
    }

    static final RedisError NOT_ONE_KEY = new RedisError("ERR BITOP NOT must be called with a single source key.");

    // BITOP <AND | OR | XOR | NOT> destkey key [key ...]
    static void bitop(Session s, Args a) {
        int op;
        if (a.is(1, "AND")) {
            op = 0;
        } else if (a.is(1, "OR")) {
            op = 1;
        } else if (a.is(1, "XOR")) {
            op = 2;
        } else if (a.is(1, "NOT")) {
            op = 3;
        } else {
            throw Errors.SYNTAX;
        }
        if (op == 3 && a.count() != 4) {
            throw NOT_ONE_KEY;
        }
        Database db = s.db();
        StripeLocks locks = s.locks();
        for (int i = 2; i < a.count(); i++) {
            locks.add(db, a.buffer(), a.offset(i), a.length(i));
        }
        locks.lock();
        try {
            int n = a.count() - 3;
            byte[][] src = new byte[n][]; // read in place (a grown string's array is longer than the string)
            int[] lengths = new int[n];
            int maxLen = 0;
            for (int j = 0; j < n; j++) {
                int h = Keys.hash(a, j + 3);
                Entry e = Keys.read(s, db.segment(h), a, j + 3, h);
                if (e != null) {
                    src[j] = Keys.stringInPlace(e);
                    lengths[j] = e.stringLength();
                    maxLen = Math.max(maxLen, lengths[j]);
                }
            }
            int h = Keys.hash(a, 2);
            Segment seg = db.segment(h);
            Entry dest = Keys.write(s, seg, a, 2, h);
            if (maxLen > 0) {
                byte[] result = combine(op, src, lengths, maxLen);
                if (dest == null) {
                    dest = seg.insert(a.copy(2), h, result, -1);
                } else {
                    dest = seg.replaceValue(dest, result);
                    dest = seg.setExpire(dest, -1);
                }
                dest.stringMark(Entry.STRING_RAW); // Redis stores the result as a raw object, never int-encoded
                s.dirty(1);
                s.notify(Notifications.STRING, "set", a, 2);
            } else if (dest != null) {
                seg.removeEntry(dest);
                s.dirty(1);
                s.notify(Notifications.GENERIC, "del", a, 2);
            }
            s.out().integer(maxLen);
        } finally {
            locks.unlock();
        }
    }

    /** AND (0), OR (1), XOR (2) or NOT (3) of the sources, missing ones and short ends reading as zeros. */
    private static byte[] combine(int op, byte[][] src, int[] lengths, int maxLen) {
        byte[] out = StringRangeCommands.allocate(maxLen);
        byte[] first = src[0];
        if (first != null) {
            System.arraycopy(first, 0, out, 0, lengths[0]);
        }
        if (op == 3) {
            for (int i = 0; i < maxLen; i++) {
                out[i] = (byte) ~out[i];
            }
            return out;
        }
        for (int j = 1; j < src.length; j++) {
            byte[] b = src[j];
            int len = lengths[j];
            switch (op) {
                case 0 -> {
                    for (int i = 0; i < len; i++) {
                        out[i] &= b[i];
                    }
                    Arrays.fill(out, len, maxLen, (byte) 0);
                }
                case 1 -> {
                    for (int i = 0; i < len; i++) {
                        out[i] |= b[i];
                    }
                }
                default -> {
                    for (int i = 0; i < len; i++) {
                        out[i] ^= b[i];
                    }
                }
            }
        }
        return out;
    }
}
