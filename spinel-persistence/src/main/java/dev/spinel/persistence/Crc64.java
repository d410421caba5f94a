package dev.spinel.persistence;

/**
 * Redis's CRC-64 ({@code crc64.c}): the Jones polynomial {@code 0xad93d23594c935a9}, reflected input
 * and output, initial value 0, no final xor. It guards RDB files (8 bytes little-endian after the EOF
 * opcode) and DUMP payloads. Check value: {@code crc64("123456789") == 0xe9c6d914c4b8d9caL}.
 *
 * <p>Stateless and thread-safe; a running CRC is a plain {@code long} the caller keeps.
 */
public final class Crc64 {
    /** The Jones polynomial bit-reversed, for the reflected (LSB-first) table algorithm. */
    private static final long POLY_REFLECTED = Long.reverse(0xad93d23594c935a9L);
    private static final long[] TABLE = new long[256];

    static {
        for (int n = 0; n < 256; n++) {
            long c = n;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) != 0 ? (c >>> 1) ^ POLY_REFLECTED : c >>> 1;
            }
            TABLE[n] = c;
        }
    }

    private Crc64() {
    }

    /** Continues {@code crc} over {@code len} bytes of {@code buf} from {@code off}. */
    public static long update(long crc, byte[] buf, int off, int len) {
        for (int i = off, end = off + len; i < end; i++) {
            crc = TABLE[(int) ((crc ^ buf[i]) & 0xFF)] ^ (crc >>> 8);
        }
        return crc;
    }

    public static long of(byte[] buf) {
        return update(0, buf, 0, buf.length);
    }
}
