package dev.spinel.server.commands.bitmap;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.Numbers;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.commands.string.StringRangeCommands;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Bitmap commands on strings (Redis's bitops.c): SETBIT, GETBIT, BITCOUNT, BITPOS; BITOP is in
 * {@link BitopCommand}, BITFIELD and BITFIELD_RO in {@link BitfieldCommand}; this class registers them. Bit 0 is the most significant bit of byte 0, as in
 * Redis; a missing key reads as an endless run of zero bits.
 *
 * <p>Stored strings are immutable (snapshots rely on it): a SETBIT that changes a bit stores a new
 * copy of the string, which costs O(length) per call on a big bitmap where Redis flips one byte in
 * place. A SETBIT that changes nothing (same bit, no growth) stores nothing and, as in Redis 7.0,
 * counts no change and sends no event.
 *
 * <p>Thread-safety: stateless; every command holds its keys' stripe locks for its whole run.
 */
public final class BitmapCommands {
    private BitmapCommands() {
    }

    static final RedisError BAD_OFFSET = new RedisError("ERR bit offset is not an integer or out of range");
    static final RedisError BAD_BIT = new RedisError("ERR bit is not an integer or out of range");
    static final RedisError BITPOS_BIT = new RedisError("ERR The bit argument must be 1 or 0.");
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    public static void register(CommandTable t) {
        t.register("setbit", BitmapCommands::setbit);
        t.register("getbit", BitmapCommands::getbit);
        t.register("bitcount", BitmapCommands::bitcount);
        t.register("bitpos", BitmapCommands::bitpos);
        t.register("bitop", BitopCommand::bitop);
        t.register("bitfield", (s, a) -> BitfieldCommand.bitfield(s, a, false));
        t.register("bitfield_ro", (s, a) -> BitfieldCommand.bitfield(s, a, true));
    }

    /**
     * Redis's getBitOffsetFromArgument: a non-negative bit offset whose byte lies below
     * proto-max-bulk-len; with {@code hash}, {@code #N} means N times {@code bits} (the multiplication
     * wraps unchecked, as in Redis 7.0).
     */
    static long bitOffset(Session s, Args a, int i, boolean hash, int bits) {
        byte[] b = a.buffer();
        int off = a.offset(i);
        int len = a.length(i);
        boolean useHash = false;
        if (hash && len > 1 && b[off] == '#') {
            off++;
            len--;
            useHash = true;
        }
        long v;
        try {
            v = Numbers.parseLong(b, off, len);
        } catch (NumberFormatException e) {
            throw BAD_OFFSET;
        }
        if (useHash) {
            v *= bits;
        }
        if (v < 0 || (v >>> 3) >= s.engine().config().protoMaxBulkLen.value()) {
            throw BAD_OFFSET;
        }
        return v;
    }

    /** A copy of {@code old} (null: none) at least {@code length} bytes long, zero padded. */
    static byte[] grownCopy(byte[] old, int length) {
        int n = old == null ? length : Math.max(old.length, length);
        byte[] v = StringRangeCommands.allocate(n);
        if (old != null) {
            System.arraycopy(old, 0, v, 0, old.length);
        }
        return v;
    }

    // SETBIT key offset value
    static void setbit(Session s, Args a) {
        long offset = bitOffset(s, a, 2, false, 0);
        long on;
        try {
            on = a.parseLong(3);
        } catch (NumberFormatException e) {
            throw BAD_BIT;
        }
        if ((on & ~1L) != 0) {
            throw BAD_BIT;
        }
        int need = StringRangeCommands.checkStringLength(s, offset >>> 3, 1);
        int index = need - 1;
        int shift = 7 - (int) (offset & 7);
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            int oldLength = e == null ? -1 : Keys.stringLength(e);
            int was = index < oldLength ? (e.stringByte(index) >> shift) & 1 : 0;
            if (e == null || need > oldLength || was != on) {
                if (e == null) { // Redis's new string is exactly as long as the bit needs
                    byte[] v = grownCopy(null, need);
                    v[index] = (byte) (on << shift);
                    e = seg.insert(a.copy(1), h, v, -1); // a short one is copied into the entry: written first
                } else { // in place, O(1) unless the string grows past its spare room
                    e = StringRangeCommands.grow(seg, e, need);
                    byte[] v = e.growableString().array();
                    v[index] = (byte) ((v[index] & ~(1 << shift)) | (on << shift));
                }
                s.dirty(1);
                s.notify(Notifications.STRING, "setbit", a, 1);
            }
            // Redis's lookupStringForBitCommand makes the string raw and unshared even when no bit changes.
            e.stringMark(Entry.STRING_RAW);
            s.out().integer(was);
        } finally {
            seg.unlock();
        }
    }

    // GETBIT key offset
    static void getbit(Session s, Args a) {
        long offset = bitOffset(s, a, 2, false, 0);
        long index = offset >>> 3;
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            int bit = e != null && index < Keys.stringLength(e) ? (e.stringByte((int) index) >> (7 - (int) (offset & 7))) & 1 : 0;
            s.out().integer(bit);
        } finally {
            seg.unlock();
        }
    }

    /** BIT or BYTE (any case) at argument {@code i}; true for BIT, syntax error otherwise. */
    private static boolean isBitUnit(Args a, int i) {
        if (a.is(i, "BIT")) {
            return true;
        }
        if (a.is(i, "BYTE")) {
            return false;
        }
        throw Errors.SYNTAX;
    }

    // BITCOUNT key [start end [BYTE | BIT]]
    static void bitcount(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            if (e == null) {
                s.out().integer(0); // answered before the arguments are even looked at, as in Redis
                return;
            }
            byte[] v = Keys.stringInPlace(e); // a grown string's array: only its first len bytes are the string
            int len = e.stringLength();
            long start;
            long end;
            long firstBit;
            long lastBit;
            int argc = a.count();
            if (argc == 4 || argc == 5) {
                start = NumberArgs.parseLong(a, 2);
                end = NumberArgs.parseLong(a, 3);
                if (start < 0 && end < 0 && start > end) {
                    s.out().integer(0);
                    return;
                }
                boolean bits = argc == 5 && isBitUnit(a, 4);
                long total = bits ? (long) len << 3 : len;
                start = clampIndex(start, total);
                end = clampIndex(end, total);
                if (end >= total) {
                    end = total - 1;
                }
                if (start > end) {
                    s.out().integer(0); // before start << 3 can overflow (start = LLONG_MAX)
                    return;
                }
                firstBit = bits ? start : start << 3;
                lastBit = bits ? end : (end << 3) + 7;
            } else if (argc == 2) {
                firstBit = 0;
                lastBit = ((long) len << 3) - 1;
            } else {
                throw Errors.SYNTAX;
            }
            s.out().integer(firstBit > lastBit ? 0 : count(v, firstBit, lastBit));
        } finally {
            seg.unlock();
        }
    }

    /** A range index made absolute (negative counts from {@code total}) and not below zero. */
    private static long clampIndex(long i, long total) {
        if (i < 0) {
            i += total;
        }
        return Math.max(i, 0);
    }

    /** The set bits from bit {@code first} to bit {@code last}, both included and inside {@code v}. */
    static long count(byte[] v, long first, long last) {
        int from = (int) (first >>> 3);
        int to = (int) (last >>> 3);
        if (from == to) {
            return Integer.bitCount(v[from] & edgeMask(first, last));
        }
        long n = Integer.bitCount(v[from] & edgeMask(first, 7)) + Integer.bitCount(v[to] & edgeMask(0, last));
        int i = from + 1;
        for (; i + 8 <= to; i += 8) {
            n += Long.bitCount((long) LONGS.get(v, i));
        }
        for (; i < to; i++) {
            n += Integer.bitCount(v[i] & 0xFF);
        }
        return n;
    }

    /** The bits of one byte from in-byte position {@code first & 7} to {@code last & 7} (0 = MSB). */
    private static int edgeMask(long first, long last) {
        return (0xFF >>> (int) (first & 7)) & (0xFF << (7 - (int) (last & 7))) & 0xFF;
    }

    // BITPOS key bit [start [end [BYTE | BIT]]]
    static void bitpos(Session s, Args a) {
        long bit = NumberArgs.parseLong(a, 2);
        if (bit != 0 && bit != 1) {
            throw BITPOS_BIT;
        }
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.read(s, seg, a, 1, h);
            if (e == null) {
                s.out().integer(bit == 1 ? -1 : 0); // a missing key is all zero bits
                return;
            }
            byte[] v = Keys.stringInPlace(e); // a grown string's array: only its first len bytes are the string
            int len = e.stringLength();
            int argc = a.count();
            boolean endGiven = false;
            long firstBit;
            long lastBit;
            if (argc >= 4 && argc <= 6) {
                long start = NumberArgs.parseLong(a, 3);
                boolean bits = argc == 6 && isBitUnit(a, 5);
                long total = bits ? (long) len << 3 : len;
                long end = total - 1;
                if (argc >= 5) {
                    end = NumberArgs.parseLong(a, 4);
                    endGiven = true;
                }
                start = clampIndex(start, total);
                end = clampIndex(end, total);
                if (end >= total) {
                    end = total - 1;
                }
                if (start > end) {
                    s.out().integer(-1);
                    return;
                }
                firstBit = bits ? start : start << 3;
                lastBit = bits ? end : (end << 3) + 7;
            } else if (argc == 3) {
                firstBit = 0;
                lastBit = ((long) len << 3) - 1;
            } else {
                throw Errors.SYNTAX;
            }
            if (firstBit > lastBit) {
                s.out().integer(-1); // the empty string
                return;
            }
            long pos = find(v, firstBit, lastBit, (int) bit);
            if (pos < 0 && bit == 0 && !endGiven) {
                // without an explicit end the string continues with zero bits: the first one after its range
                pos = ((lastBit >>> 3) + 1) << 3;
            }
            s.out().integer(pos);
        } finally {
            seg.unlock();
        }
    }

    /** The first bit equal to {@code bit} from bit {@code first} to {@code last} (inside {@code v}), or -1. */
    static long find(byte[] v, long first, long last, int bit) {
        int to = (int) (last >>> 3);
        int skip = bit == 1 ? 0 : 0xFF;
        long skipWord = bit == 1 ? 0 : -1L;
        for (int i = (int) (first >>> 3); i <= to; i++) {
            while (i + 8 < to && (long) LONGS.get(v, i) == skipWord) {
                i += 8; // eight bytes without the bit looked for
            }
            int x = (v[i] & 0xFF) ^ skip;
            if (x == 0) {
                continue;
            }
            long lo = i == (first >>> 3) ? first : 0;
            long hi = i == to ? last : 7;
            x &= edgeMask(lo, hi);
            if (x != 0) {
                return ((long) i << 3) + Integer.numberOfLeadingZeros(x) - 24;
            }
        }
        return -1;
    }
}
