package dev.spinel.persistence;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Decoders of the compact blobs Redis stores inside RDB strings: listpack (Redis 7), ziplist (Redis
 * 3.2-6.2), intset and zipmap (Redis 2.x); and a listpack encoder for quicklist nodes. Written from the
 * formats' descriptions in Redis's {@code listpack.c}, {@code ziplist.c}, {@code intset.c} and
 * {@code zipmap.c}. Every decoder checks its header and bounds and throws {@link RdbException} on a
 * malformed blob (the loader then names the key's offset). Integers come back as their decimal text,
 * as Redis returns them.
 *
 * <p>Stateless and thread-safe.
 */
public final class CompactBlobs {
    private CompactBlobs() {
    }

    // ------------------------------------------------------------------------------------ listpack

    /** The entries of a listpack, in order. */
    public static List<byte[]> listpack(byte[] lp) {
        if (lp.length < 7) {
            throw bad("listpack", "too short");
        }
        long total = u32le(lp, 0);
        int declared = (lp[4] & 0xFF) | ((lp[5] & 0xFF) << 8);
        if (total != lp.length || (lp[lp.length - 1] & 0xFF) != 0xFF) {
            throw bad("listpack", "header size or terminator mismatch");
        }
        List<byte[]> out = new ArrayList<>(declared == 0xFFFF ? 16 : declared);
        int p = 6;
        int end = lp.length - 1;
        while (p < end) {
            int b = lp[p] & 0xFF;
            int entryLen;
            if ((b & 0x80) == 0) {
                out.add(num(b & 0x7F));
                entryLen = 1;
            } else if ((b & 0xC0) == 0x80) {
                int len = b & 0x3F;
                out.add(slice(lp, p + 1, len, end));
                entryLen = 1 + len;
            } else if ((b & 0xE0) == 0xC0) {
                need(lp, p + 2, end);
                int v = ((b & 0x1F) << 8) | (lp[p + 1] & 0xFF);
                if (v >= 1 << 12) {
                    v -= 1 << 13;
                }
                out.add(num(v));
                entryLen = 2;
            } else if ((b & 0xF0) == 0xE0) {
                need(lp, p + 2, end);
                int len = ((b & 0x0F) << 8) | (lp[p + 1] & 0xFF);
                out.add(slice(lp, p + 2, len, end));
                entryLen = 2 + len;
            } else if (b == 0xF0) {
                need(lp, p + 5, end);
                long len = u32le(lp, p + 1);
                if (len > end) {
                    throw bad("listpack", "entry length out of range");
                }
                out.add(slice(lp, p + 5, (int) len, end));
                entryLen = 5 + (int) len;
            } else if (b >= 0xF1 && b <= 0xF4) {
                int n = switch (b) {
                    case 0xF1 -> 2;
                    case 0xF2 -> 3;
                    case 0xF3 -> 4;
                    default -> 8;
                };
                need(lp, p + 1 + n, end);
                out.add(num(signedLe(lp, p + 1, n)));
                entryLen = 1 + n;
            } else {
                throw bad("listpack", "invalid entry encoding " + b);
            }
            int backlen = backlenSize(entryLen);
            need(lp, p + entryLen + backlen, end);
            // the back length (read backwards by lpPrev) must name this entry's size, as Redis's lpValidateNext checks
            if (decodeBacklen(lp, p + entryLen + backlen - 1, p) != entryLen) {
                throw bad("listpack", "entry back length mismatch");
            }
            p += entryLen + backlen;
        }
        if (p != end) {
            throw bad("listpack", "entry runs past the end");
        }
        if (declared != 0xFFFF && declared != out.size()) {
            throw bad("listpack", "entry count mismatch");
        }
        return out;
    }

    /**
     * Redis's lpDecodeBacklen: 7-bit groups read backwards from {@code last}, while the 0x80 flag says more precede;
     * -1 when that would pass {@code first} (the entry's first byte) or take more than 5 bytes.
     */
    static long decodeBacklen(byte[] lp, int last, int first) {
        long v = 0;
        int shift = 0;
        for (int i = last; ; i--) {
            if (i < first) {
                return -1;
            }
            int b = lp[i] & 0xFF;
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
            shift += 7;
            if (shift > 28) {
                return -1;
            }
        }
    }

    static int backlenSize(long l) {
        if (l <= 127) {
            return 1;
        } else if (l < 16383) {
            return 2;
        } else if (l < 2097151) {
            return 3;
        } else if (l < 268435455) {
            return 4;
        }
        return 5;
    }

    /** Builds a listpack of string entries (Redis accepts strings for any element). Not thread-safe. */
    public static final class ListpackBuilder {
        private byte[] buf = new byte[64];
        private int pos = 6;
        private int count;

        /** The size the listpack would have with {@code len} more bytes of element. */
        public int sizeWith(int len) {
            int entry = headerSize(len) + len;
            return pos + entry + backlenSize(entry) + 1;
        }

        public int count() {
            return count;
        }

        private static int headerSize(int len) {
            return len < 64 ? 1 : len < 4096 ? 2 : 5;
        }

        public void add(byte[] s) {
            int len = s.length;
            int entry = headerSize(len) + len;
            ensure(entry + 5 + 1);
            if (len < 64) {
                buf[pos++] = (byte) (0x80 | len);
            } else if (len < 4096) {
                buf[pos++] = (byte) (0xE0 | (len >>> 8));
                buf[pos++] = (byte) len;
            } else {
                buf[pos++] = (byte) 0xF0;
                for (int i = 0; i < 4; i++) {
                    buf[pos++] = (byte) (len >>> (8 * i));
                }
            }
            System.arraycopy(s, 0, buf, pos, len);
            pos += len;
            // Redis's lpEncodeBacklen: big-endian 7-bit groups, every byte but the first flagged 0x80.
            int n = backlenSize(entry);
            for (int i = 0; i < n; i++) {
                int shift = 7 * (n - 1 - i);
                int g = (int) ((entry >>> shift) & 0x7F);
                buf[pos++] = (byte) (i == 0 ? g : g | 0x80);
            }
            count++;
        }

        public byte[] build() {
            byte[] out = new byte[pos + 1];
            System.arraycopy(buf, 0, out, 0, pos);
            out[pos] = (byte) 0xFF;
            int total = out.length;
            for (int i = 0; i < 4; i++) {
                out[i] = (byte) (total >>> (8 * i));
            }
            int c = Math.min(count, 0xFFFF);
            out[4] = (byte) c;
            out[5] = (byte) (c >>> 8);
            return out;
        }

        private void ensure(int n) {
            if (pos + n > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
            }
        }
    }

    // ------------------------------------------------------------------------------------ ziplist

    /** The entries of a ziplist, in order. */
    public static List<byte[]> ziplist(byte[] zl) {
        if (zl.length < 11) {
            throw bad("ziplist", "too short");
        }
        if (u32le(zl, 0) != zl.length || (zl[zl.length - 1] & 0xFF) != 0xFF) {
            throw bad("ziplist", "header size or terminator mismatch");
        }
        int declared = (zl[8] & 0xFF) | ((zl[9] & 0xFF) << 8);
        List<byte[]> out = new ArrayList<>(declared == 0xFFFF ? 16 : declared);
        int p = 10;
        int end = zl.length - 1;
        int prevLen = 0; // Redis's ziplistValidateIntegrity: each entry's prevlen is the previous entry's size
        int last = 10;
        while (p < end) {
            int start = p;
            if ((zl[p] & 0xFF) < 254) {
                if ((zl[p] & 0xFF) != prevLen) {
                    throw bad("ziplist", "prevlen " + (zl[p] & 0xFF) + " where the previous entry has " + prevLen + " bytes");
                }
                p += 1;
            } else {
                need(zl, p + 5, end);
                if ((zl[p] & 0xFF) != 254 || u32le(zl, p + 1) != prevLen) {
                    throw bad("ziplist", "prevlen does not match the previous entry's " + prevLen + " bytes");
                }
                p += 5;
            }
            need(zl, p + 1, end);
            int b = zl[p] & 0xFF;
            switch (b >>> 6) {
                case 0 -> {
                    int len = b & 0x3F;
                    out.add(slice(zl, p + 1, len, end));
                    p += 1 + len;
                }
                case 1 -> {
                    need(zl, p + 2, end);
                    int len = ((b & 0x3F) << 8) | (zl[p + 1] & 0xFF);
                    out.add(slice(zl, p + 2, len, end));
                    p += 2 + len;
                }
                case 2 -> {
                    need(zl, p + 5, end);
                    long len = ((zl[p + 1] & 0xFFL) << 24) | ((zl[p + 2] & 0xFF) << 16) | ((zl[p + 3] & 0xFF) << 8) | (zl[p + 4] & 0xFF);
                    if (len > end) {
                        throw bad("ziplist", "entry length out of range");
                    }
                    out.add(slice(zl, p + 5, (int) len, end));
                    p += 5 + (int) len;
                }
                default -> {
                    int n;
                    long v;
                    if (b == 0xC0) {
                        n = 2;
                    } else if (b == 0xD0) {
                        n = 4;
                    } else if (b == 0xE0) {
                        n = 8;
                    } else if (b == 0xF0) {
                        n = 3;
                    } else if (b == 0xFE) {
                        n = 1;
                    } else if (b >= 0xF1 && b <= 0xFD) {
                        n = 0;
                    } else {
                        throw bad("ziplist", "invalid entry encoding " + b);
                    }
                    need(zl, p + 1 + n, end);
                    v = n == 0 ? (b & 0x0F) - 1 : signedLe(zl, p + 1, n);
                    out.add(num(v));
                    p += 1 + n;
                }
            }
            prevLen = p - start;
            last = start;
        }
        if (p != end) {
            throw bad("ziplist", "entry runs past the end");
        }
        if (u32le(zl, 4) != last) {
            throw bad("ziplist", "tail offset " + u32le(zl, 4) + " is not the last entry's " + last);
        }
        if (declared != 0xFFFF && declared != out.size()) {
            throw bad("ziplist", "entry count mismatch");
        }
        return out;
    }

    // ------------------------------------------------------------------------------------ intset

    /** The members of an intset (encoding u32, length u32, sorted little-endian integers). */
    public static List<byte[]> intset(byte[] is) {
        if (is.length < 8) {
            throw bad("intset", "too short");
        }
        long enc = u32le(is, 0);
        long len = u32le(is, 4);
        if ((enc != 2 && enc != 4 && enc != 8) || 8 + len * enc != is.length) {
            throw bad("intset", "invalid encoding or length");
        }
        List<byte[]> out = new ArrayList<>((int) len);
        for (int i = 0; i < len; i++) {
            out.add(num(signedLe(is, 8 + i * (int) enc, (int) enc)));
        }
        return out;
    }

    // ------------------------------------------------------------------------------------ zipmap

    /** Alternating fields and values of a zipmap (Redis 2.x small hashes). */
    public static List<byte[]> zipmap(byte[] zm) {
        if (zm.length < 2 || (zm[zm.length - 1] & 0xFF) != 0xFF) {
            throw bad("zipmap", "missing terminator");
        }
        List<byte[]> out = new ArrayList<>();
        int p = 1;
        int end = zm.length - 1;
        while (p < end) {
            int[] lenAt = zipmapLen(zm, p, end);
            out.add(slice(zm, lenAt[1], lenAt[0], end));
            p = lenAt[1] + lenAt[0];
            lenAt = zipmapLen(zm, p, end);
            need(zm, lenAt[1] + 1, end);
            int free = zm[lenAt[1]] & 0xFF;
            out.add(slice(zm, lenAt[1] + 1, lenAt[0], end));
            p = lenAt[1] + 1 + lenAt[0] + free;
        }
        if (p != end || (out.size() & 1) != 0) {
            throw bad("zipmap", "entry runs past the end");
        }
        return out;
    }

    private static int[] zipmapLen(byte[] zm, int p, int end) {
        need(zm, p + 1, end);
        int b = zm[p] & 0xFF;
        if (b < 254) {
            return new int[] {b, p + 1};
        }
        if (b == 254) {
            need(zm, p + 5, end);
            long len = u32le(zm, p + 1);
            if (len > end) {
                throw bad("zipmap", "entry length out of range");
            }
            return new int[] {(int) len, p + 5};
        }
        throw bad("zipmap", "unexpected end marker");
    }

    // ------------------------------------------------------------------------------------ helpers

    private static long u32le(byte[] b, int p) {
        return (b[p] & 0xFFL) | ((b[p + 1] & 0xFFL) << 8) | ((b[p + 2] & 0xFFL) << 16) | ((b[p + 3] & 0xFFL) << 24);
    }

    private static long signedLe(byte[] b, int p, int n) {
        long v = 0;
        for (int i = 0; i < n; i++) {
            v |= (b[p + i] & 0xFFL) << (8 * i);
        }
        int shift = 64 - 8 * n;
        return (v << shift) >> shift;
    }

    private static void need(byte[] b, int upTo, int end) {
        if (upTo > end) {
            throw new RdbException("Compact blob entry runs past the end");
        }
    }

    private static byte[] slice(byte[] b, int from, int len, int end) {
        if (len < 0 || from + (long) len > end) {
            throw new RdbException("Compact blob entry runs past the end");
        }
        return Arrays.copyOfRange(b, from, from + len);
    }

    private static byte[] num(long v) {
        return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
    }

    private static RdbException bad(String what, String why) {
        return new RdbException("Invalid " + what + ": " + why);
    }
}
