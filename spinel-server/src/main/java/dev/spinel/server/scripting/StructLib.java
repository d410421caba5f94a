package dev.spinel.server.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code struct} library of Redis 7.0's Lua (Roberto Ierusalimschy's struct 1.4 with Redis's fixes):
 * {@code pack}, {@code unpack} and {@code size}, as on x86-64 Linux: little-endian by default, no
 * alignment until {@code !}, {@code l}/{@code L}/{@code T}/{@code d} 8 bytes, {@code i}/{@code I} 4 unless
 * sized (1 to 32 bytes, integers held in 64 bits), {@code !} alone aligns to 8.
 *
 * <p>Format options: {@code > < ! x b B h H l L T i I f d s c ' '}; anything else is "invalid format
 * option" (argument 1). The format ends at its first NUL byte, as a C string.
 *
 * <p>Stateless.
 */
final class StructLib {
    private static final int MAXINTSIZE = 32;
    /** MAXALIGN on x86-64: the alignment of a double after a char. */
    private static final int MAXALIGN = 8;

    private StructLib() {
    }

    static LuaTable create() {
        LuaTable t = new LuaTable();
        t.rawset("pack", new LibFunction("pack", StructLib::pack));
        t.rawset("unpack", new LibFunction("unpack", StructLib::unpack));
        t.rawset("size", new LibFunction("size", StructLib::size));
        return t;
    }

    /** A format being read: its bytes up to the first NUL, the position, endianness and alignment. */
    private static final class Format {
        final byte[] b;
        final int end;
        int p;
        boolean little = true;
        int align = 1;

        Format(LuaString s) {
            b = s.m_bytes;
            p = s.m_offset;
            int e = p;
            while (e < s.m_offset + s.m_length && b[e] != 0) {
                e++;
            }
            end = e;
        }

        boolean more() {
            return p < end;
        }

        /** The next option, as C's (signed) {@code char} promoted to int. */
        int next() {
            return b[p++];
        }

        private boolean digit() {
            return p < end && b[p] >= '0' && b[p] <= '9';
        }

        /** getnum with Redis's overflow check. */
        int number(int df) {
            if (!digit()) {
                return df;
            }
            int a = 0;
            do {
                int d = b[p] - '0';
                if (a > Integer.MAX_VALUE / 10 || a * 10 > Integer.MAX_VALUE - d) {
                    throw new LuaError("integral size overflow");
                }
                a = a * 10 + d;
                p++;
            } while (digit());
            return a;
        }

        /** optsize: the bytes an option takes (0 for those that take none). */
        long size(int opt) {
            return switch (opt) {
                case 'B', 'b', 'x' -> 1;
                case 'H', 'h' -> 2;
                case 'L', 'l', 'T', 'd' -> 8;
                case 'f' -> 4;
                case 'c' -> number(1);
                case 'i', 'I' -> {
                    int sz = number(4);
                    if (sz > MAXINTSIZE) {
                        throw new LuaError("integral size " + sz + " is larger than limit of " + MAXINTSIZE);
                    }
                    yield sz;
                }
                default -> 0;
            };
        }

        /** gettoalign: the padding before an option of {@code size} bytes at {@code len}. */
        long toAlign(long len, int opt, long size) {
            if (size == 0 || opt == 'c') {
                return 0;
            }
            if (size > align) {
                size = align;
            }
            return (size - (len & (size - 1))) & (size - 1);
        }

        /** controloptions: endianness, alignment, spaces; any other option is an error. */
        void control(LibFunction f, int opt) {
            switch (opt) {
                case ' ' -> {
                }
                case '>' -> little = false;
                case '<' -> little = true;
                case '!' -> {
                    int a = number(MAXALIGN);
                    if (a <= 0 || (a & (a - 1)) != 0) {
                        throw new LuaError("alignment " + a + " is not a power of 2");
                    }
                    align = a;
                }
                default -> throw f.argError(1, "invalid format option '" + (char) (opt & 0xff) + "'");
            }
        }
    }

    private static boolean isInteger(int opt) {
        return switch (opt) {
            case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I' -> true;
            default -> false;
        };
    }

    private static Varargs pack(LibFunction f, Varargs a) {
        Format fmt = new Format(f.checkString(a, 1));
        // b_pack pushes a nil after its arguments: one argument too many is "got nil", not "no value"
        Varargs marked = LuaValue.varargsOf(appendNil(a, a.narg()));
        int arg = 2;
        long total = 0;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (fmt.more()) {
            int opt = fmt.next();
            long size = fmt.size(opt);
            long pad = fmt.toAlign(total, opt, size);
            total += pad;
            for (long i = 0; i < pad; i++) {
                out.write(0);
            }
            if (isInteger(opt)) {
                double n = f.checkNumber(marked, arg++);
                long value = n < 0 ? LibFunction.cLong(n) : cUnsigned(n);
                for (int i = 0; i < size; i++) {
                    int shift = fmt.little ? i : (int) size - 1 - i;
                    out.write(shift < 8 ? (int) (value >>> (8 * shift)) & 0xff : 0);
                }
            } else if (opt == 'x') {
                out.write(0);
            } else if (opt == 'f') {
                int bits = floatBits(f.checkNumber(marked, arg++));
                write(out, bits & 0xffffffffL, 4, fmt.little);
            } else if (opt == 'd') {
                write(out, CmsgpackLib.doubleBits(f.checkNumber(marked, arg++)), 8, fmt.little);
            } else if (opt == 'c' || opt == 's') {
                LuaString s = f.checkString(marked, arg++);
                long l = s.m_length;
                if (size == 0) {
                    size = l;
                }
                if (l < size) {
                    throw f.argError(arg, "string too short");
                }
                out.write(s.m_bytes, s.m_offset, (int) size);
                if (opt == 's') {
                    out.write(0);
                    size++;
                }
            } else {
                fmt.control(f, opt);
            }
            total += size;
        }
        return LuaString.valueUsing(out.toByteArray());
    }

    private static LuaValue[] appendNil(Varargs a, int nargs) {
        LuaValue[] v = new LuaValue[nargs + 1];
        for (int i = 0; i < nargs; i++) {
            v[i] = a.arg(i + 1);
        }
        v[nargs] = LuaValue.NIL;
        return v;
    }

    /** C's {@code (unsigned long) d} for d ≥ 0 (or NaN) as gcc compiles it on x86-64. */
    private static long cUnsigned(double d) {
        if (Double.isNaN(d) || d < 0x1p63) {
            return LibFunction.cLong(d); // NaN: INT64_MIN
        }
        if (d < 0x1p64) {
            return (long) (d - 0x1p63) ^ Long.MIN_VALUE;
        }
        return 0;
    }

    /** The bits of {@code (float) d} as x86-64 converts it (a NaN keeps its sign and top payload bits). */
    static int floatBits(double d) {
        if (Double.isNaN(d)) {
            long b = CmsgpackLib.doubleBits(d);
            return (int) ((b >>> 32) & 0x80000000L) | 0x7fc00000 | (int) ((b >>> 29) & 0x003fffff);
        }
        return Float.floatToRawIntBits((float) d);
    }

    private static void write(ByteArrayOutputStream out, long bits, int n, boolean little) {
        for (int i = 0; i < n; i++) {
            int shift = little ? i : n - 1 - i;
            out.write((int) (bits >>> (8 * shift)) & 0xff);
        }
    }

    /** getinteger's accumulation: {@code n} bytes in the given order into 64 bits (earlier bytes shift out). */
    private static long read(byte[] b, int at, int n, boolean little) {
        long v = 0;
        for (int i = 0; i < n; i++) {
            int idx = little ? at + n - 1 - i : at + i;
            v = (v << 8) | (b[idx] & 0xff);
        }
        return v;
    }

    /** Unsigned 64-bit to double, rounded as C's conversion. */
    private static double unsignedToDouble(long l) {
        if (l >= 0) {
            return l;
        }
        return ((double) ((l >>> 1) | (l & 1))) * 2.0;
    }

    private static Varargs unpack(LibFunction f, Varargs a) {
        Format fmt = new Format(f.checkString(a, 1));
        LuaString data = f.checkString(a, 2);
        long ld = data.m_length;
        long pos = f.optInteger(a, 3, 1);
        if (pos == 0) {
            throw f.argError(3, "offset must be 1 or greater");
        }
        pos--; // size_t arithmetic: a negative offset is a huge position, refused below
        long top = Math.max(a.narg(), 2);
        List<LuaValue> results = new ArrayList<>();
        while (fmt.more()) {
            int opt = fmt.next();
            long size = fmt.size(opt);
            pos += fmt.toAlign(pos, opt, size);
            if (!fits(pos, size, ld)) {
                throw f.argError(2, "data string too short");
            }
            LibFunction.checkStack(top + results.size(), 2, "too many results");
            int at = data.m_offset + (int) pos;
            if (isInteger(opt)) {
                long l = read(data.m_bytes, at, (int) size, fmt.little); // bytes past the 8th shift out
                double res;
                if (Character.isLowerCase(opt)) {
                    long mask = -1L << (size * 8 - 1);
                    if ((l & mask) != 0) {
                        l |= mask;
                    }
                    res = l;
                } else {
                    res = unsignedToDouble(l);
                }
                results.add(LuaValue.valueOf(res));
            } else if (opt == 'f') {
                results.add(LuaValue.valueOf((double) Float.intBitsToFloat((int) read(data.m_bytes, at, 4, fmt.little))));
            } else if (opt == 'd') {
                results.add(LuaValue.valueOf(Double.longBitsToDouble(read(data.m_bytes, at, 8, fmt.little))));
            } else if (opt == 'c') {
                if (size == 0) {
                    LuaValue last = results.isEmpty() ? LuaValue.NIL : results.getLast();
                    LuaValue n = last.type() == LuaValue.TNUMBER || last.type() == LuaValue.TSTRING ? last.tonumber() : LuaValue.NIL;
                    if (n.isnil()) {
                        throw new LuaError("format 'c0' needs a previous size");
                    }
                    size = cUnsignedSize(n.todouble());
                    results.removeLast();
                    if (!fits(pos, size, ld)) {
                        throw f.argError(2, "data string too short");
                    }
                }
                results.add(LuaString.valueOf(data.m_bytes, at, (int) size));
            } else if (opt == 's') {
                int e = at;
                int limit = data.m_offset + (int) ld;
                while (e < limit && data.m_bytes[e] != 0) {
                    e++;
                }
                if (e == limit) {
                    throw new LuaError("unfinished string in data");
                }
                size = e - at + 1;
                results.add(LuaString.valueOf(data.m_bytes, at, (int) size - 1));
            } else if (opt != 'x') {
                fmt.control(f, opt);
            }
            pos += size;
        }
        results.add(LuaValue.valueOf((double) (pos + 1)));
        return LuaValue.varargsOf(results.toArray(new LuaValue[0]));
    }

    /** {@code size <= ld && pos <= ld - size}, unsigned as size_t. */
    private static boolean fits(long pos, long size, long ld) {
        return Long.compareUnsigned(size, ld) <= 0 && Long.compareUnsigned(pos, ld - size) <= 0;
    }

    /** C's {@code (size_t) d}: negative and NaN sizes are huge (then refused as too long for the data). */
    private static long cUnsignedSize(double d) {
        return d < 0 ? LibFunction.cLong(d) : cUnsigned(d);
    }

    private static Varargs size(LibFunction f, Varargs a) {
        Format fmt = new Format(f.checkString(a, 1));
        long pos = 0;
        while (fmt.more()) {
            int opt = fmt.next();
            long size = fmt.size(opt);
            pos += fmt.toAlign(pos, opt, size);
            if (opt == 's') {
                throw f.argError(1, "option 's' has no fixed size");
            } else if (opt == 'c' && size == 0) {
                throw f.argError(1, "option 'c0' has no fixed size");
            }
            if (!isAlnum(opt)) {
                fmt.control(f, opt);
            }
            pos += size;
        }
        return LuaValue.valueOf((double) pos);
    }

    private static boolean isAlnum(int c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }
}
