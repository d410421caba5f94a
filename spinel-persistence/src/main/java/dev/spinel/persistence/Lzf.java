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
 * The compressor reproduces liblzf 3.6's {@code lzf_compress} (Marc Alexander Lehmann, BSD 2-clause
 * licence) as vendored in Redis 7.0 ({@code HLOG 16}, {@code VERY_FAST}, {@code INIT_HTAB 0}, offsets
 * in the hash table), so its output is byte-identical to redis-server's for the same hash table
 * contents: same hash, same match search and re-hashing after a match, same encodings and the same
 * output-limit checks (which decide, with Redis's {@code len-4} limit, whether a string is stored
 * compressed). This is an independent Java rendering of that algorithm, not a copy of its source.
 *
 * <p>Stateless and thread-safe; a table passed to {@link #compress(byte[], int, byte[], int, int[])}
 * must not be shared between threads.
 */
public final class Lzf {
    private static final int MAX_LIT = 1 << 5;
    private static final int MAX_OFF = 1 << 13;
    private static final int MAX_REF = (1 << 8) + (1 << 3);
    private static final int HLOG = 16;
    private static final int HSIZE = 1 << HLOG;

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
        return new int[HSIZE];
    }

    /**
     * As {@link #compress(byte[], int, byte[], int)} with a caller-owned hash table (from
     * {@link #newTable()}), so that compressing a million short strings does not allocate and clear
     * 256 KB each. The table is not cleared between calls, as liblzf's is not (an uninitialised
     * stack array in Redis, {@code INIT_HTAB 0}), and that never changes the output: an entry is
     * only used when it lies in {@code [1, ip)}, within 8 KB, and the three bytes there equal those at
     * {@code ip}; and the first occurrence of any 3 bytes before {@code ip} was itself hashed in this
     * call (every position is, except those inside a match before its last two, and the 3 bytes at
     * such a position occur earlier, at the matched source), so the slot of bytes seen before holds a
     * position of this call, and a stale entry can only be consulted for bytes not seen before, where
     * it cannot match. The output is thus a function of the input alone, here and in Redis.
     */
    public static int compress(byte[] in, int inLen, byte[] out, int outLimit, int[] htab) {
        if (inLen == 0 || outLimit == 0) {
            return 0;
        }
        final int inEnd = inLen;
        final int outEnd = outLimit;
        int ip = 0;
        int op = 0;
        int lit = 0;
        op++; // start run
        int hval = inLen >= 2 ? ((in[0] & 0xFF) << 8) | (in[1] & 0xFF) : 0;
        while (ip < inEnd - 2) {
            hval = (hval << 8) | (in[ip + 2] & 0xFF);
            int slot = idx(hval);
            int ref = htab[slot];
            htab[slot] = ip;
            int off = ip - ref - 1;
            if (off >= 0 && off < MAX_OFF && ref > 0
                    && in[ref + 2] == in[ip + 2] && in[ref] == in[ip] && in[ref + 1] == in[ip + 1]) {
                int len = 2;
                int maxlen = inEnd - ip - len;
                if (maxlen > MAX_REF) {
                    maxlen = MAX_REF;
                }
                if (op + 3 + 1 >= outEnd && op - (lit == 0 ? 1 : 0) + 3 + 1 >= outEnd) {
                    return 0;
                }
                if (lit > 0) {
                    out[op - lit - 1] = (byte) (lit - 1); // stop run
                } else {
                    op--; // undo run if length is zero
                }
                extend:
                {
                    if (maxlen > 16) {
                        for (int k = 0; k < 16; k++) {
                            len++;
                            if (in[ref + len] != in[ip + len]) {
                                break extend;
                            }
                        }
                    }
                    do {
                        len++;
                    } while (len < maxlen && in[ref + len] == in[ip + len]);
                }
                len -= 2; // len is now #octets - 1
                ip++;
                if (len < 7) {
                    out[op++] = (byte) ((off >>> 8) + (len << 5));
                } else {
                    out[op++] = (byte) ((off >>> 8) + (7 << 5));
                    out[op++] = (byte) (len - 7);
                }
                out[op++] = (byte) off;
                lit = 0;
                op++; // start run
                ip += len + 1;
                if (ip >= inEnd - 2) {
                    break;
                }
                // VERY_FAST: hash the last two positions of the match only.
                ip -= 2;
                hval = ((in[ip] & 0xFF) << 8) | (in[ip + 1] & 0xFF);
                hval = (hval << 8) | (in[ip + 2] & 0xFF);
                htab[idx(hval)] = ip;
                ip++;
                hval = (hval << 8) | (in[ip + 2] & 0xFF);
                htab[idx(hval)] = ip;
                ip++;
            } else {
                if (op >= outEnd) {
                    return 0;
                }
                lit++;
                out[op++] = in[ip++];
                if (lit == MAX_LIT) {
                    out[op - lit - 1] = (byte) (lit - 1); // stop run
                    lit = 0;
                    op++; // start run
                }
            }
        }
        if (op + 3 > outEnd) { // at most 3 bytes can be missing here
            return 0;
        }
        while (ip < inEnd) {
            lit++;
            out[op++] = in[ip++];
            if (lit == MAX_LIT) {
                out[op - lit - 1] = (byte) (lit - 1);
                lit = 0;
                op++;
            }
        }
        if (lit > 0) {
            out[op - lit - 1] = (byte) (lit - 1); // end run
        } else {
            op--;
        }
        return op;
    }

    /** liblzf's {@code IDX} with {@code VERY_FAST} and {@code HLOG 16}, over the last three bytes in {@code h}. */
    private static int idx(int h) {
        return ((h >>> (3 * 8 - HLOG)) - h * 5) & (HSIZE - 1);
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
