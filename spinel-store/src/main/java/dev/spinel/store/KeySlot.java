package dev.spinel.store;

/**
 * Redis Cluster's hash slot of a key: CRC16 (XMODEM: polynomial 0x1021, initial value 0) of the key,
 * or of the first non-empty {@code {...}} section in it (a hash tag), modulo {@value #SLOTS}.
 *
 * <p>Stateless and thread-safe.
 */
public final class KeySlot {
    public static final int SLOTS = 16384;
    private static final int[] TABLE = new int[256];
    /**
     * The CRC of byte {@code x} followed by a zero byte: with it two bytes take two independent look-ups
     * (the table is linear, {@code T[a ^ b] = T[a] ^ T[b]}), halving the chain of dependent steps per key.
     */
    private static final int[] PAIR = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int crc = i << 8;
            for (int b = 0; b < 8; b++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            TABLE[i] = crc & 0xFFFF;
        }
        for (int x = 0; x < 256; x++) {
            PAIR[x] = ((TABLE[x] & 0xFF) << 8) ^ TABLE[TABLE[x] >>> 8];
        }
    }

    private KeySlot() {
    }

    public static int of(byte[] key) {
        return of(key, 0, key.length);
    }

    /**
     * The slot of the key in {@code b[off, off+len)}. One pass, two bytes a step: the CRC of the whole key is
     * computed while looking for a {@code '{'}; only a key that has one is read again for its tag.
     */
    public static int of(byte[] b, int off, int len) {
        int end = off + len;
        int crc = 0;
        int i = off;
        for (; i + 1 < end; i += 2) {
            byte b0 = b[i];
            byte b1 = b[i + 1];
            if (b0 == '{' || b1 == '{') {
                return tagged(b, off, b0 == '{' ? i : i + 1, end);
            }
            crc = PAIR[((crc >>> 8) ^ b0) & 0xFF] ^ TABLE[(crc ^ b1) & 0xFF];
        }
        if (i < end) {
            byte c = b[i];
            if (c == '{') {
                return tagged(b, off, i, end);
            }
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ c) & 0xFF]) & 0xFFFF;
        }
        return crc & (SLOTS - 1);
    }

    /** The slot of a key whose first {@code '{'} is at {@code open}. */
    private static int tagged(byte[] b, int off, int open, int end) {
        int close = open + 1;
        while (close < end && b[close] != '}') {
            close++;
        }
        // As Redis: an unclosed or empty tag hashes the whole key.
        if (close < end && close > open + 1) {
            return crc16(b, open + 1, close) & (SLOTS - 1);
        }
        return crc16(b, off, end) & (SLOTS - 1);
    }

    static int crc16(byte[] b, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ b[i]) & 0xFF]) & 0xFFFF;
        }
        return crc;
    }
}
