package dev.spinel.persistence;

/**
 * The LZF compression format of liblzf, which Redis uses for long strings in RDB files
 * ({@code RDB_ENC_LZF}). A compressed stream is a sequence of
 * <ul>
 *   <li>literal runs: a control byte {@code 000LLLLL} followed by {@code L+1} bytes (1..32), and</li>
 *   <li>back references: {@code LLLooooo oooooooo} ({@code L} in 1..6: length {@code L+2}), or
 *       {@code 111ooooo LLLLLLLL oooooooo} (length {@code L+9}); the offset {@code o+1} counts back
 *       from the current output position, up to 8192 bytes.</li>
 * </ul>
 * This is an independent implementation of that format: a greedy matcher over a hash of the next
 * three bytes.
 *
 * <p>Stateless and thread-safe; a table passed to {@link #compress(byte[], int, byte[], int, int[])}
 * must not be shared between threads.
 */
public final class Lzf {
    private static final int MAX_LITERAL = 32;
    private static final int MAX_OFFSET = 1 << 13;
    private static final int MAX_MATCH = 7 + 255 + 2;
    private static final int HASH_BITS = 14;

    private Lzf() {
    }

    /**
     * Compresses {@code in[0..inLen)} into {@code out}, using at most {@code outLimit} bytes. Returns the
     * compressed length, or 0 when the result would not fit (the caller then stores the bytes raw).
     */
    public static int compress(byte[] in, int inLen, byte[] out, int outLimit) {
        return compress(in, inLen, out, outLimit, newTable());
    }

    /** A hash table for {@link #compress(byte[], int, byte[], int, int[])}, reusable across calls. */
    public static int[] newTable() {
        return new int[1 << HASH_BITS];
    }

    /**
     * As {@link #compress(byte[], int, byte[], int)} with a caller-owned hash table (from
     * {@link #newTable()}), so that compressing a million short strings does not allocate and clear
     * 64 KB each. The table need not be cleared between calls: an entry left by an earlier input is
     * only used when it points before the current position and the bytes there match, which makes it
     * a valid back reference in this input.
     */
    public static int compress(byte[] in, int inLen, byte[] out, int outLimit, int[] table) {
        if (inLen == 0 || outLimit < 2) {
            return 0;
        }
        int ip = 0;
        int op = 1; // out[0] is the control byte of the first literal run
        int lit = 0;
        while (ip < inLen) {
            int ref = -1;
            if (ip + 2 < inLen) {
                int h = hash(in, ip);
                ref = table[h] - 1;
                table[h] = ip + 1;
            }
            int off = ip - ref - 1;
            if (ref >= 0 && ref < ip && off < MAX_OFFSET && in[ref] == in[ip] && in[ref + 1] == in[ip + 1] && in[ref + 2] == in[ip + 2]) {
                int max = Math.min(MAX_MATCH, inLen - ip);
                int len = 3;
                while (len < max && in[ref + len] == in[ip + len]) {
                    len++;
                }
                if (lit > 0) {
                    out[op - lit - 1] = (byte) (lit - 1);
                } else {
                    op--; // no literal run to close: drop its reserved control byte
                }
                int l = len - 2;
                if (op + (l < 7 ? 2 : 3) + 1 > outLimit) {
                    return 0;
                }
                if (l < 7) {
                    out[op++] = (byte) ((l << 5) | (off >>> 8));
                } else {
                    out[op++] = (byte) ((7 << 5) | (off >>> 8));
                    out[op++] = (byte) (l - 7);
                }
                out[op++] = (byte) off;
                // Index the positions inside the match so later data can refer to them.
                for (int p = ip + 1; p < ip + len && p + 2 < inLen; p++) {
                    table[hash(in, p)] = p + 1;
                }
                ip += len;
                lit = 0;
                op++; // reserve the next run's control byte
            } else {
                if (op >= outLimit) {
                    return 0;
                }
                out[op++] = in[ip++];
                if (++lit == MAX_LITERAL) {
                    out[op - lit - 1] = (byte) (lit - 1);
                    lit = 0;
                    op++;
                }
            }
        }
        if (lit > 0) {
            out[op - lit - 1] = (byte) (lit - 1);
        } else {
            op--;
        }
        return op <= outLimit ? op : 0;
    }

    private static int hash(byte[] in, int p) {
        int v = ((in[p] & 0xFF) << 16) | ((in[p + 1] & 0xFF) << 8) | (in[p + 2] & 0xFF);
        return (v * 0x9E3779B1) >>> (32 - HASH_BITS);
    }

    /**
     * Decompresses {@code in[off..off+len)} into exactly {@code outLen} bytes. Throws
     * {@link IllegalArgumentException} on a malformed stream or a length mismatch.
     */
    public static byte[] decompress(byte[] in, int off, int len, int outLen) {
        byte[] out = new byte[outLen];
        int ip = off;
        int end = off + len;
        int op = 0;
        while (ip < end) {
            int ctrl = in[ip++] & 0xFF;
            if (ctrl < 32) {
                int n = ctrl + 1;
                if (op + n > outLen || ip + n > end) {
                    throw new IllegalArgumentException("LZF literal run past the end");
                }
                System.arraycopy(in, ip, out, op, n);
                ip += n;
                op += n;
            } else {
                int l = ctrl >>> 5;
                if (l == 7) {
                    if (ip >= end) {
                        throw new IllegalArgumentException("LZF truncated back reference");
                    }
                    l += in[ip++] & 0xFF;
                }
                if (ip >= end) {
                    throw new IllegalArgumentException("LZF truncated back reference");
                }
                int ref = op - ((ctrl & 0x1F) << 8) - (in[ip++] & 0xFF) - 1;
                int n = l + 2;
                if (ref < 0 || op + n > outLen) {
                    throw new IllegalArgumentException("LZF back reference out of range");
                }
                for (int i = 0; i < n; i++) {
                    out[op++] = out[ref++]; // byte by byte: the source may overlap the output
                }
            }
        }
        if (op != outLen) {
            throw new IllegalArgumentException("LZF length mismatch: " + op + " != " + outLen);
        }
        return out;
    }
}
