package dev.spinel.store.types;

import java.util.Arrays;

/**
 * One HyperLogLog value in Redis 7.0's exact byte representation (hyperloglog.c), so that a value
 * written by redis-server works here and the other way round.
 *
 * <p>Layout: a 16-byte header {@code "HYLL"}, the encoding byte (0 dense, 1 sparse), 3 unused bytes,
 * the cached cardinality as 8 little-endian bytes whose top bit (bit 7 of byte 15) marks the cache
 * invalid; then the 16384 registers of 6 bits. Dense: the registers packed least significant bit
 * first (12288 bytes). Sparse: run-length opcodes, ZERO {@code 00xxxxxx} (1..64 zero registers),
 * XZERO {@code 01xxxxxx yyyyyyyy} (1..16384 zero registers), VAL {@code 1vvvvvxx} (1..4 registers of
 * value 1..32); promoted to dense past {@code hll-sparse-max-bytes} or for a value above 32.
 *
 * <p>An instance reads a stored array without copying it; the first change copies it (stored
 * strings are immutable), and {@link #bytes()} hands back the array to store. Not thread-safe: used
 * under the key's stripe lock.
 */
public final class HyperLogLog {
    static final int P = 14;
    static final int Q = 64 - P;
    public static final int REGISTERS = 1 << P;
    static final int HDR = 16;
    static final int DENSE_SIZE = HDR + (REGISTERS * 6 + 7) / 8;
    public static final int DENSE = 0;
    public static final int SPARSE = 1;
    private static final int VAL_MAX_VALUE = 32;
    private static final int VAL_MAX_LEN = 4;
    private static final int ZERO_MAX_LEN = 64;
    private static final int XZERO_MAX_LEN = 16384;

    private byte[] buf;
    private int len;
    private boolean owned;

    HyperLogLog(byte[] buf, int len, boolean owned) {
        this.buf = buf;
        this.len = len;
        this.owned = owned;
    }

    /** Wraps a stored string that {@link #isValid} accepted; it is copied before the first change. */
    public static HyperLogLog of(byte[] stored) {
        return new HyperLogLog(stored, stored.length, false);
    }

    /** Redis's createHLLObject: sparse, every register zero as XZERO runs, cached cardinality 0. */
    public static HyperLogLog create() {
        int n = (REGISTERS + XZERO_MAX_LEN - 1) / XZERO_MAX_LEN;
        byte[] b = new byte[HDR + 2 * n + 8];
        b[0] = 'H';
        b[1] = 'Y';
        b[2] = 'L';
        b[3] = 'L';
        b[4] = SPARSE;
        int p = HDR;
        for (int left = REGISTERS; left > 0; left -= XZERO_MAX_LEN) {
            setXzero(b, p, Math.min(left, XZERO_MAX_LEN));
            p += 2;
        }
        return new HyperLogLog(b, HDR + 2 * n, true);
    }

    /** Redis's isHLLObjectOrReply test on a string value: magic, known encoding, dense size. */
    public static boolean isValid(byte[] v) {
        if (v.length < HDR || v[0] != 'H' || v[1] != 'Y' || v[2] != 'L' || v[3] != 'L') {
            return false;
        }
        int enc = v[4] & 0xff;
        return enc == SPARSE || (enc == DENSE && v.length == DENSE_SIZE);
    }

    /**
     * The value to store: an array of the exact length (the wrapped one when nothing changed). The
     * array handed out is never written again: a later change copies it first.
     */
    public byte[] bytes() {
        if (buf.length == len) {
            owned = false;
            return buf;
        }
        return Arrays.copyOf(buf, len);
    }

    public int encoding() {
        return buf[4] & 0xff;
    }

    private void own(int room) {
        if (!owned || len + room > buf.length) {
            // A sparse value grows a few bytes per change: leave it room; a dense one never grows.
            int capacity = encoding() == DENSE ? Math.max(len, buf.length) : len + room + Math.max(16, len / 2);
            buf = Arrays.copyOf(buf, capacity);
            owned = true;
        }
    }

    public boolean cacheValid() {
        return (buf[15] & 0x80) == 0;
    }

    public long cachedCard() {
        long c = 0;
        for (int i = 7; i >= 0; i--) {
            c = (c << 8) | (buf[8 + i] & 0xff);
        }
        return c;
    }

    public void invalidateCache() {
        if (cacheValid()) {
            own(0);
            buf[15] |= (byte) 0x80;
        }
    }

    public void setCachedCard(long card) {
        own(0);
        for (int i = 0; i < 8; i++) {
            buf[8 + i] = (byte) (card >>> (8 * i));
        }
    }

    // ---- dense registers

    static int denseGet(byte[] b, int regnum) {
        int bit = regnum * 6;
        int i = HDR + (bit >>> 3);
        int fb = bit & 7;
        int b0 = b[i] & 0xff;
        int b1 = i + 1 < b.length ? b[i + 1] & 0xff : 0;
        return ((b0 >>> fb) | (b1 << (8 - fb))) & 63;
    }

    static void denseSet(byte[] b, int regnum, int val) {
        int bit = regnum * 6;
        int i = HDR + (bit >>> 3);
        int fb = bit & 7;
        int fb8 = 8 - fb;
        b[i] = (byte) ((b[i] & ~(63 << fb)) | (val << fb));
        if (i + 1 < DENSE_SIZE) {
            b[i + 1] = (byte) ((b[i + 1] & ~(63 >>> fb8)) | (val >>> fb8));
        }
    }

    // ---- adding

    /** Redis's hllAdd: 1 if a register changed, 0 if not, -1 for a corrupted sparse value. */
    public int add(byte[] ele, int off, int n, long sparseMaxBytes) {
        long pl = HllMath.patLen(ele, off, n);
        int index = (int) pl;
        int count = (int) (pl >>> 32);
        return encoding() == DENSE ? denseUpdate(index, count) : sparseSet(index, count, sparseMaxBytes);
    }

    /** Raises a dense register to {@code count} if lower: 1 if changed. */
    private int denseUpdate(int index, int count) {
        if (denseGet(buf, index) >= count) {
            return 0;
        }
        own(0);
        denseSet(buf, index, count);
        return 1;
    }

    /** Redis's hllSparseSet: raises register {@code index} to {@code count}, promoting when needed. */
    int sparseSet(int index, int count, long sparseMaxBytes) {
        if (count > VAL_MAX_VALUE) {
            return promoteAndSet(index, count);
        }
        // Step 1: find the opcode covering the register.
        int p = HDR;
        int end = len;
        int first = 0;
        int prev = -1;
        int span = 0;
        while (p < end) {
            int op = buf[p] & 0xff;
            int oplen = 1;
            if ((op & 0xc0) == 0) {
                span = (op & 0x3f) + 1;
            } else if ((op & 0x80) != 0) {
                span = (op & 3) + 1;
            } else {
                span = xzeroLen(p);
                oplen = 2;
            }
            if (index <= first + span - 1) {
                break;
            }
            prev = p;
            p += oplen;
            first += span;
        }
        if (span == 0 || p >= end) {
            return -1;
        }
        int op = buf[p] & 0xff;
        boolean isZero = (op & 0xc0) == 0;
        boolean isXzero = (op & 0xc0) == 0x40;
        boolean isVal = (op & 0x80) != 0;
        int runlen = isZero ? (op & 0x3f) + 1 : isXzero ? xzeroLen(p) : (op & 3) + 1;
        boolean trivial = false;
        if (isVal) {
            int oldcount = ((op >>> 2) & 0x1f) + 1;
            if (oldcount >= count) {
                return 0;
            }
            trivial = runlen == 1;
        } else if (isZero && runlen == 1) {
            trivial = true;
        }
        if (trivial) {
            own(0);
            buf[p] = val(count, 1);
        } else {
            // Step 2: split the opcode into at most XZERO-VAL-XZERO (5 bytes).
            byte[] seq = new byte[5];
            int n = 0;
            int last = first + span - 1;
            if (isZero || isXzero) {
                if (index != first) {
                    n = zeros(seq, n, index - first);
                }
                seq[n++] = val(count, 1);
                if (index != last) {
                    n = zeros(seq, n, last - index);
                }
            } else {
                int curval = ((op >>> 2) & 0x1f) + 1;
                if (index != first) {
                    seq[n++] = val(curval, index - first);
                }
                seq[n++] = val(count, 1);
                if (index != last) {
                    seq[n++] = val(curval, last - index);
                }
            }
            // Step 3: put the new sequence in place of the old opcode.
            int oldlen = isXzero ? 2 : 1;
            int delta = n - oldlen;
            if (delta > 0 && (long) len + delta > sparseMaxBytes) {
                return promoteAndSet(index, count);
            }
            own(Math.max(delta, 0));
            int next = p + oldlen;
            if (delta != 0 && next < end) {
                System.arraycopy(buf, next, buf, next + delta, end - next);
            }
            len += delta;
            System.arraycopy(seq, 0, buf, p, n);
            end += delta;
        }
        // Step 4: merge adjacent VAL opcodes of the same value, scanning up to 5 opcodes from prev.
        p = prev >= 0 ? prev : HDR;
        int scan = 5;
        while (p < end && scan-- > 0) {
            int o = buf[p] & 0xff;
            if ((o & 0xc0) == 0x40) {
                p += 2;
                continue;
            } else if ((o & 0xc0) == 0) {
                p++;
                continue;
            }
            if (p + 1 < end && (buf[p + 1] & 0x80) != 0) {
                int o2 = buf[p + 1] & 0xff;
                int v1 = ((o >>> 2) & 0x1f) + 1;
                int v2 = ((o2 >>> 2) & 0x1f) + 1;
                if (v1 == v2) {
                    int merged = (o & 3) + 1 + (o2 & 3) + 1;
                    if (merged <= VAL_MAX_LEN) {
                        buf[p + 1] = val(v1, merged);
                        System.arraycopy(buf, p + 1, buf, p, end - p - 1);
                        len--;
                        end--;
                        continue;
                    }
                }
            }
            p++;
        }
        invalidateCache();
        return 1;
    }

    private int promoteAndSet(int index, int count) {
        if (!toDense()) {
            return -1;
        }
        denseSet(buf, index, count);
        return 1;
    }

    private int xzeroLen(int p) {
        int lo = p + 1 < len ? buf[p + 1] & 0xff : 0;
        return (((buf[p] & 0x3f) << 8) | lo) + 1;
    }

    private static byte val(int value, int runlen) {
        return (byte) (0x80 | ((value - 1) << 2) | (runlen - 1));
    }

    private static int zeros(byte[] seq, int n, int runlen) {
        if (runlen > ZERO_MAX_LEN) {
            setXzero(seq, n, runlen);
            return n + 2;
        }
        seq[n] = (byte) (runlen - 1);
        return n + 1;
    }

    private static void setXzero(byte[] b, int p, int runlen) {
        int l = runlen - 1;
        b[p] = (byte) ((l >>> 8) | 0x40);
        b[p + 1] = (byte) (l & 0xff);
    }

    /** Redis's hllSparseToDense (no-op when dense): false when the sparse opcodes are corrupted. */
    public boolean toDense() {
        if (encoding() == DENSE) {
            return true;
        }
        byte[] dense = new byte[DENSE_SIZE];
        System.arraycopy(buf, 0, dense, 0, HDR);
        dense[4] = DENSE;
        int idx = 0;
        int p = HDR;
        while (p < len) {
            int op = buf[p] & 0xff;
            int runlen = runLength(p);
            if (runlen > REGISTERS - idx) {
                return false; // a run past the last register (many runs would even wrap the index)
            }
            if ((op & 0xc0) == 0) {
                idx += runlen;
                p++;
            } else if ((op & 0xc0) == 0x40) {
                idx += runlen;
                p += 2;
            } else {
                int v = ((op >>> 2) & 0x1f) + 1;
                while (runlen-- > 0) {
                    denseSet(dense, idx++, v);
                }
                p++;
            }
        }
        if (idx != REGISTERS) {
            return false;
        }
        buf = dense;
        len = DENSE_SIZE;
        owned = true;
        return true;
    }

    // ---- merging and counting

    /** The number of registers the sparse opcode at {@code p} covers (ZERO, XZERO or VAL). */
    private int runLength(int p) {
        int op = buf[p] & 0xff;
        if ((op & 0xc0) == 0) {
            return (op & 0x3f) + 1;
        }
        return (op & 0xc0) == 0x40 ? xzeroLen(p) : (op & 3) + 1;
    }

    /** Redis's hllMerge: {@code max[i] = max(max[i], register i)}; false for a corrupted sparse value. */
    public boolean mergeInto(byte[] max) {
        if (encoding() == DENSE) {
            for (int i = 0; i < REGISTERS; i++) {
                int v = denseGet(buf, i);
                if (v > max[i]) {
                    max[i] = (byte) v;
                }
            }
            return true;
        }
        int i = 0;
        int p = HDR;
        while (p < len) {
            int op = buf[p] & 0xff;
            int runlen = runLength(p);
            if (runlen > REGISTERS - i) {
                return false; // as the redis-server we compare with: a run past the end is corruption
            }
            if ((op & 0xc0) == 0) {
                i += runlen;
                p++;
            } else if ((op & 0xc0) == 0x40) {
                i += runlen;
                p += 2;
            } else {
                int v = ((op >>> 2) & 0x1f) + 1;
                while (runlen-- > 0) {
                    if (v > max[i]) {
                        max[i] = (byte) v;
                    }
                    i++;
                }
                p++;
            }
        }
        return i == REGISTERS;
    }

    /** PFMERGE's write of the merged registers into this (destination) value. */
    public void setAll(byte[] max, long sparseMaxBytes) {
        for (int j = 0; j < REGISTERS; j++) {
            if (max[j] == 0) {
                continue;
            }
            if (encoding() == DENSE) {
                own(0);
                denseSet(buf, j, max[j]);
            } else {
                sparseSet(j, max[j], sparseMaxBytes);
            }
        }
    }

    /** The estimate of this value's registers, or -1 when the sparse opcodes are corrupted. */
    public long count() {
        int[] histo = new int[64];
        if (encoding() == DENSE) {
            for (int i = 0; i < REGISTERS; i++) {
                histo[denseGet(buf, i)]++;
            }
        } else {
            int idx = 0;
            int p = HDR;
            while (p < len) {
                int op = buf[p] & 0xff;
                int runlen;
                if ((op & 0xc0) == 0) {
                    runlen = (op & 0x3f) + 1;
                    histo[0] += runlen;
                    p++;
                } else if ((op & 0xc0) == 0x40) {
                    runlen = xzeroLen(p);
                    histo[0] += runlen;
                    p += 2;
                } else {
                    runlen = (op & 3) + 1;
                    histo[((op >>> 2) & 0x1f) + 1] += runlen;
                    p++;
                }
                if (runlen > REGISTERS - idx) {
                    return -1; // checked before adding: enough runs would wrap the index back into range
                }
                idx += runlen;
            }
            if (idx != REGISTERS) {
                return -1;
            }
        }
        return HllMath.estimate(histo);
    }

    /** The estimate of raw registers (one byte each), as PFCOUNT of several keys computes it. */
    public static long countRaw(byte[] registers) {
        int[] histo = new int[64];
        for (byte r : registers) {
            histo[r]++;
        }
        return HllMath.estimate(histo);
    }

    /** PFDEBUG DECODE's text of a sparse value: {@code z:len}, {@code Z:len}, {@code v:value,len}. */
    public String decode() {
        StringBuilder sb = new StringBuilder();
        int p = HDR;
        while (p < len) {
            int op = buf[p] & 0xff;
            if ((op & 0xc0) == 0) {
                sb.append("z:").append((op & 0x3f) + 1).append(' ');
                p++;
            } else if ((op & 0xc0) == 0x40) {
                sb.append("Z:").append(xzeroLen(p)).append(' ');
                p += 2;
            } else {
                sb.append("v:").append(((op >>> 2) & 0x1f) + 1).append(',').append((op & 3) + 1).append(' ');
                p++;
            }
        }
        return sb.toString().strip();
    }

    /** The dense register values (converts a sparse value first; the caller checked it converts). */
    public int register(int i) {
        return denseGet(buf, i);
    }
}
