package dev.spinel.server.commands.bitmap;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.Numbers;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.commands.string.StringRangeCommands;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;

/**
 * BITFIELD and BITFIELD_RO (Redis's bitfieldGeneric): signed fields of 1 to 64 bits and unsigned ones
 * of 1 to 63, at bit offsets or at {@code #N} (N times the width), with GET, SET, INCRBY and OVERFLOW
 * WRAP|SAT|FAIL. Every subcommand is parsed before anything runs, so a bad one fails the whole call.
 *
 * <p>A call with a write first grows the string to its farthest written bit (creating the key even
 * when every write then fails on OVERFLOW FAIL, as Redis does), then runs the subcommands in order on
 * a copy that is stored at the end (stored strings are immutable). As in Redis 7.0, each SET or INCRBY
 * carried out counts as one change when it changed its field or the string had to grow; with any
 * change the key gets a {@code setbit} event. A call without changes (only GETs, writes of the same
 * value, refused writes) is neither counted nor logged.
 *
 * <p>Thread-safety: stateless; holds the key's stripe lock for the whole call.
 */
final class BitfieldCommand {
    private BitfieldCommand() {
    }

    static final RedisError BAD_TYPE = new RedisError(
            "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.");
    static final RedisError BAD_OVERFLOW = new RedisError("ERR Invalid OVERFLOW type specified");
    static final RedisError READ_ONLY = new RedisError("ERR BITFIELD_RO only supports the GET subcommand");

    private static final int GET = 0;
    private static final int SET = 1;
    private static final int INCRBY = 2;
    private static final int WRAP = 0;
    private static final int SAT = 1;
    private static final int FAIL = 2;

    /** One parsed subcommand; {@code bits} is negative for signed fields. */
    private record Op(int opcode, long offset, int bits, boolean signed, long value, int overflow) {
    }

    // BITFIELD key [GET encoding offset | [OVERFLOW <WRAP | SAT | FAIL>] <SET encoding offset value | INCRBY encoding offset increment> ...]
    // BITFIELD_RO key [GET encoding offset ...]
    static void bitfield(Session s, Args a, boolean readOnlyCommand) {
        Op[] ops = new Op[(a.count() - 2) / 3 + 1];
        int n = 0;
        int overflow = WRAP;
        boolean readOnly = true;
        long highestWrite = 0;
        for (int j = 2; j < a.count(); j++) {
            int remaining = a.count() - j - 1;
            int opcode;
            if (a.is(j, "GET") && remaining >= 2) {
                opcode = GET;
            } else if (a.is(j, "SET") && remaining >= 3) {
                opcode = SET;
            } else if (a.is(j, "INCRBY") && remaining >= 3) {
                opcode = INCRBY;
            } else if (a.is(j, "OVERFLOW") && remaining >= 1) {
                j++;
                if (a.is(j, "WRAP")) {
                    overflow = WRAP;
                } else if (a.is(j, "SAT")) {
                    overflow = SAT;
                } else if (a.is(j, "FAIL")) {
                    overflow = FAIL;
                } else {
                    throw BAD_OVERFLOW;
                }
                continue;
            } else {
                throw Errors.SYNTAX;
            }
            int typed = type(a, j + 1);
            int bits = Math.abs(typed);
            long offset = BitmapCommands.bitOffset(s, a, j + 2, true, bits);
            long value = 0;
            if (opcode != GET) {
                readOnly = false;
                highestWrite = Math.max(highestWrite, offset + bits - 1);
                value = NumberArgs.parseLong(a, j + 3);
            }
            ops[n++] = new Op(opcode, offset, bits, typed < 0, value, overflow);
            j += opcode == GET ? 2 : 3;
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            if (readOnly) {
                Entry e = Keys.read(s, seg, a, 1, h);
                byte[] v = e == null ? null : Keys.string(e);
                s.out().array(n);
                for (int i = 0; i < n; i++) {
                    s.out().integer(get(v, ops[i]));
                }
                return;
            }
            if (readOnlyCommand) {
                throw READ_ONLY;
            }
            if ((highestWrite >>> 3) >= Integer.MAX_VALUE - 8) {
                throw StringRangeCommands.TOO_BIG; // more than a Java array holds (proto-max-bulk-len above 2 GB)
            }
            int need = (int) (highestWrite >>> 3) + 1;
            Entry e = Keys.write(s, seg, a, 1, h);
            int oldLength = e == null ? -1 : Keys.stringLength(e);
            byte[] v;
            if (e == null) { // Redis's new string is exactly as long as the highest write needs; stored after the writes
                v = BitmapCommands.grownCopy(null, need);
            } else { // in place (dbUnshareStringValue, sdsgrowzero): O(fields) unless it grows past its spare room
                e = StringRangeCommands.grow(seg, e, need);
                v = e.growableString().array();
            }
            boolean grown = need > oldLength;
            s.out().array(n);
            int changes = 0;
            for (int i = 0; i < n; i++) {
                Op op = ops[i];
                if (op.opcode == GET) {
                    s.out().integer(get(v, op));
                } else {
                    int outcome = write(s, v, op);
                    if (outcome > 0 || (outcome == 0 && grown)) {
                        changes++; // as Redis 7.0: a write counts if it changed the field or the string grew
                    }
                }
            }
            if (e == null) {
                e = seg.insert(a.copy(1), h, v, -1); // a short one is copied into the entry: after the writes
            }
            e.stringMark(Entry.STRING_RAW); // as SETBIT: lookupStringForBitCommand's raw, unshared string
            if (changes > 0) {
                s.dirty(changes);
                s.notify(Notifications.STRING, "setbit", a, 1);
            }
        } finally {
            seg.unlock();
        }
    }

    /** Redis's getBitfieldTypeFromArgument: {@code iN} (1..64) as -N, {@code uN} (1..63) as N. */
    private static int type(Args a, int i) {
        int len = a.length(i);
        byte first = len == 0 ? 0 : a.buffer()[a.offset(i)];
        if (first != 'i' && first != 'u') {
            throw BAD_TYPE;
        }
        long bits;
        try {
            bits = Numbers.parseLong(a.buffer(), a.offset(i) + 1, len - 1);
        } catch (NumberFormatException e) {
            throw BAD_TYPE;
        }
        if (bits < 1 || bits > (first == 'i' ? 64 : 63)) {
            throw BAD_TYPE;
        }
        return first == 'i' ? (int) -bits : (int) bits;
    }

    /** A field's value; bytes past the end of {@code v} (or a null {@code v}) read as zero. */
    private static long get(byte[] v, Op op) {
        long u = 0;
        long offset = op.offset;
        for (int j = 0; j < op.bits; j++, offset++) {
            long index = offset >>> 3;
            int bit = v != null && index < v.length ? (v[(int) index] >> (7 - (int) (offset & 7))) & 1 : 0;
            u = (u << 1) | bit;
        }
        if (op.signed && op.bits < 64 && (u & (1L << (op.bits - 1))) != 0) {
            u |= -1L << op.bits;
        }
        return u;
    }

    private static void put(byte[] v, long offset, int bits, long value) {
        for (int j = 0; j < bits; j++, offset++) {
            int index = (int) (offset >>> 3);
            int mask = 1 << (7 - (int) (offset & 7));
            if ((value & (1L << (bits - 1 - j))) != 0) {
                v[index] |= (byte) mask;
            } else {
                v[index] &= (byte) ~mask;
            }
        }
    }

    /**
     * Runs a SET or INCRBY on {@code v} and replies: -1 when OVERFLOW FAIL refused it (null reply), 0
     * when the field kept its value, 1 when it changed.
     */
    private static int write(Session s, byte[] v, Op op) {
        long old = get(v, op);
        long base = op.opcode == INCRBY ? old : op.value;
        long incr = op.opcode == INCRBY ? op.value : 0;
        long[] limit = new long[1];
        boolean overflowed = op.signed
                ? signedOverflow(base, incr, op.bits, op.overflow, limit)
                : unsignedOverflow(base, incr, op.bits, op.overflow, limit);
        if (overflowed && op.overflow == FAIL) {
            s.out().nullBulk();
            return -1;
        }
        long updated = overflowed ? limit[0] : base + incr;
        put(v, op.offset, op.bits, updated);
        s.out().integer(op.opcode == INCRBY ? updated : old);
        return updated == old ? 0 : 1;
    }

    /** Redis's checkUnsignedBitfieldOverflow, {@code value} read as unsigned; the result in {@code limit[0]}. */
    static boolean unsignedOverflow(long value, long incr, int bits, int overflow, long[] limit) {
        long max = (1L << bits) - 1; // bits <= 63
        long maxIncr = max - value;
        long minIncr = -value;
        if (Long.compareUnsigned(value, max) > 0 || (incr > 0 && incr > maxIncr)) {
            limit[0] = overflow == SAT ? max : (value + incr) & max;
            return true;
        }
        if (incr < 0 && incr < minIncr) {
            limit[0] = overflow == SAT ? 0 : (value + incr) & max;
            return true;
        }
        return false;
    }

    /** Redis's checkSignedBitfieldOverflow; the saturated or wrapped result in {@code limit[0]}. */
    static boolean signedOverflow(long value, long incr, int bits, int overflow, long[] limit) {
        long max = bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1;
        long min = -max - 1;
        long maxIncr = max - value; // may wrap; used only where it cannot
        long minIncr = min - value;
        boolean over = value > max || (bits != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr);
        boolean under = !over
                && (value < min || (bits != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr));
        if (!over && !under) {
            return false;
        }
        if (overflow == SAT) {
            limit[0] = over ? max : min;
        } else {
            long c = value + incr;
            if (bits < 64) {
                long mask = -1L << bits;
                c = (c & (1L << (bits - 1))) != 0 ? c | mask : c & ~mask;
            }
            limit[0] = c;
        }
        return true;
    }
}
