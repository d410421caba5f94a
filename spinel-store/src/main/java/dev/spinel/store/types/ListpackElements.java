package dev.spinel.store.types;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Elements encoded exactly as Redis's listpack.c encodes them (integer or string header, data, and the
 * back-length that lets a reader walk backwards), written into and read from a plain {@code byte[]}.
 * Streams keep their nodes in this form, without the 6-byte header and the 0xFF terminator, so that a
 * node's size (which decides where Redis starts a new node) is the same as in Redis, and RDB saving
 * and loading are a header away from the stored bytes.
 *
 * <p>Stateless static helpers; thread-safe. Offsets point at the first byte of an element.
 */
public final class ListpackElements {
    /** Header (total bytes, element count) and terminator of a whole listpack. */
    public static final int OVERHEAD = 7;

    private ListpackElements() {
    }

    // ------------------------------------------------------------ sizes

    /** Bytes of the encoding part (header + data) of an integer element. */
    static int intEncodedSize(long v) {
        if (v >= 0 && v <= 127) {
            return 1;
        } else if (v >= -4096 && v <= 4095) {
            return 2;
        } else if (v >= -32768 && v <= 32767) {
            return 3;
        } else if (v >= -8388608 && v <= 8388607) {
            return 4;
        } else if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
            return 5;
        }
        return 9;
    }

    static int backlenSize(int encoded) {
        if (encoded <= 127) {
            return 1;
        } else if (encoded < 16383) {
            return 2;
        } else if (encoded < 2097151) {
            return 3;
        } else if (encoded < 268435455) {
            return 4;
        }
        return 5;
    }

    /** Bytes an integer element takes, back-length included. */
    public static int intSize(long v) {
        int e = intEncodedSize(v);
        return e + backlenSize(e);
    }

    /** Bytes a string element takes (stored as an integer when it reads as one, as lpAppend does). */
    public static int stringSize(byte[] b, int off, int len) {
        long[] v = INT_SCRATCH.get();
        if (asInt(b, off, len, v)) {
            return intSize(v[0]);
        }
        int e = (len < 64 ? 1 : len < 4096 ? 2 : 5) + len;
        return e + backlenSize(e);
    }

    private static final ThreadLocal<long[]> INT_SCRATCH = ThreadLocal.withInitial(() -> new long[1]);

    // ------------------------------------------------------------ writing

    /** Writes an integer element at {@code p} (room checked by the caller); returns the end offset. */
    public static int writeInt(byte[] dst, int p, long v) {
        int e = intEncodedSize(v);
        switch (e) {
            case 1 -> dst[p] = (byte) v;
            case 2 -> {
                long u = v & 0x1FFF;
                dst[p] = (byte) (0xC0 | (u >>> 8));
                dst[p + 1] = (byte) u;
            }
            default -> {
                dst[p] = (byte) (e == 3 ? 0xF1 : e == 4 ? 0xF2 : e == 5 ? 0xF3 : 0xF4);
                for (int i = 0; i < e - 1; i++) {
                    dst[p + 1 + i] = (byte) (v >>> (8 * i));
                }
            }
        }
        return writeBacklen(dst, p + e, e);
    }

    /** Writes a string element (as an integer when it reads as one); returns the end offset. */
    public static int writeString(byte[] dst, int p, byte[] b, int off, int len) {
        long[] v = INT_SCRATCH.get();
        if (asInt(b, off, len, v)) {
            return writeInt(dst, p, v[0]);
        }
        int q = p;
        if (len < 64) {
            dst[q++] = (byte) (0x80 | len);
        } else if (len < 4096) {
            dst[q++] = (byte) (0xE0 | (len >>> 8));
            dst[q++] = (byte) len;
        } else {
            dst[q++] = (byte) 0xF0;
            for (int i = 0; i < 4; i++) {
                dst[q++] = (byte) (len >>> (8 * i));
            }
        }
        System.arraycopy(b, off, dst, q, len);
        q += len;
        return writeBacklen(dst, q, q - p);
    }

    // Redis's lpEncodeBacklen: big-endian 7-bit groups, every byte but the first flagged 0x80.
    private static int writeBacklen(byte[] dst, int p, int encoded) {
        int n = backlenSize(encoded);
        for (int i = 0; i < n; i++) {
            int g = (encoded >>> (7 * (n - 1 - i))) & 0x7F;
            dst[p++] = (byte) (i == 0 ? g : g | 0x80);
        }
        return p;
    }

    /** Redis's lpStringToInt64 (string2ll rules: no '+', no leading zeros, no spaces, at most 20 chars). */
    static boolean asInt(byte[] b, int off, int len, long[] out) {
        if (len == 0 || len > 20) {
            return false;
        }
        if (len == 1 && b[off] == '0') {
            out[0] = 0;
            return true;
        }
        int p = off;
        int end = off + len;
        boolean neg = b[p] == '-';
        if (neg && ++p == end) {
            return false;
        }
        if (b[p] < '1' || b[p] > '9') {
            return false;
        }
        long v = 0; // accumulated negatively so that Long.MIN_VALUE fits
        final long multmin = Long.MIN_VALUE / 10;
        for (; p < end; p++) {
            int d = b[p] - '0';
            if (d < 0 || d > 9 || v < multmin) {
                return false;
            }
            v *= 10;
            if (v < Long.MIN_VALUE + d) {
                return false;
            }
            v -= d;
        }
        if (!neg) {
            if (v == Long.MIN_VALUE) {
                return false;
            }
            v = -v;
        }
        out[0] = v;
        return true;
    }

    // ------------------------------------------------------------ reading

    /** Offset of the element after the one at {@code p}. */
    public static int next(byte[] b, int p) {
        int e = encodedSize(b, p);
        return p + e + backlenSize(e);
    }

    /** True when the element at {@code p} is integer-encoded. */
    public static boolean isInt(byte[] b, int p) {
        int h = b[p] & 0xFF;
        return (h & 0x80) == 0 || (h & 0xE0) == 0xC0 || (h >= 0xF1 && h <= 0xF4);
    }

    /** The integer at {@code p} (which must be integer-encoded). */
    public static long intAt(byte[] b, int p) {
        int h = b[p] & 0xFF;
        if ((h & 0x80) == 0) {
            return h;
        }
        if ((h & 0xE0) == 0xC0) {
            int v = ((h & 0x1F) << 8) | (b[p + 1] & 0xFF);
            return v >= 4096 ? v - 8192 : v;
        }
        int n = h == 0xF1 ? 2 : h == 0xF2 ? 3 : h == 0xF3 ? 4 : 8;
        long v = 0;
        for (int i = 0; i < n; i++) {
            v |= (long) (b[p + 1 + i] & 0xFF) << (8 * i);
        }
        int shift = 64 - 8 * n;
        return (v << shift) >> shift;
    }

    /** Offset of the data of the string element at {@code p}. */
    public static int strOff(byte[] b, int p) {
        int h = b[p] & 0xFF;
        return (h & 0xC0) == 0x80 ? p + 1 : (h & 0xF0) == 0xE0 ? p + 2 : p + 5;
    }

    /** Length of the string element at {@code p}. */
    public static int strLen(byte[] b, int p) {
        int h = b[p] & 0xFF;
        if ((h & 0xC0) == 0x80) {
            return h & 0x3F;
        }
        if ((h & 0xF0) == 0xE0) {
            return ((h & 0x0F) << 8) | (b[p + 1] & 0xFF);
        }
        return (b[p + 1] & 0xFF) | (b[p + 2] & 0xFF) << 8 | (b[p + 3] & 0xFF) << 16 | (b[p + 4] & 0xFF) << 24;
    }

    /** Bytes of the header and data of the element at {@code p} (without its back-length). */
    static int encodedSize(byte[] b, int p) {
        int h = b[p] & 0xFF;
        if ((h & 0x80) == 0) {
            return 1;
        } else if ((h & 0xC0) == 0x80) {
            return 1 + (h & 0x3F);
        } else if ((h & 0xE0) == 0xC0) {
            return 2;
        } else if ((h & 0xF0) == 0xE0) {
            return 2 + strLen(b, p);
        } else if (h == 0xF0) {
            return 5 + strLen(b, p);
        }
        return switch (h) {
            case 0xF1 -> 3;
            case 0xF2 -> 4;
            case 0xF3 -> 5;
            case 0xF4 -> 9;
            default -> throw new IllegalStateException("bad listpack element header " + h);
        };
    }

    /** True when the element at {@code p} equals the given bytes (as a string, whatever its encoding). */
    public static boolean equalsString(byte[] b, int p, byte[] s, int off, int len, byte[] scratch) {
        if (isInt(b, p)) {
            int n = formatLong(scratch, intAt(b, p));
            return n == len && Arrays.equals(scratch, 0, n, s, off, off + len);
        }
        int so = strOff(b, p);
        return strLen(b, p) == len && Arrays.equals(b, so, so + len, s, off, off + len);
    }

    /** Visits the element at {@code p} as a string; integers are formatted into {@code scratch} (≥ 20 bytes). */
    public static boolean visit(byte[] b, int p, byte[] scratch, ElementVisitor v) {
        if (isInt(b, p)) {
            int n = formatLong(scratch, intAt(b, p));
            return v.visit(scratch, 0, n);
        }
        return v.visit(b, strOff(b, p), strLen(b, p));
    }

    /** The element at {@code p} as a new string. */
    public static byte[] copy(byte[] b, int p) {
        if (isInt(b, p)) {
            return Long.toString(intAt(b, p)).getBytes(StandardCharsets.US_ASCII);
        }
        int so = strOff(b, p);
        return Arrays.copyOfRange(b, so, so + strLen(b, p));
    }

    /** Writes {@code v} in decimal at the start of {@code dst}; returns the length. */
    public static int formatLong(byte[] dst, long v) {
        if (v == Long.MIN_VALUE) {
            byte[] m = "-9223372036854775808".getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(m, 0, dst, 0, m.length);
            return m.length;
        }
        int n = 0;
        if (v < 0) {
            dst[n++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        for (int i = n + digits - 1; i >= n; i--) {
            dst[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        return n + digits;
    }
}
