package dev.spinel.store.types;

/**
 * Unsigned LEB128 lengths used by the compact ("listpack") encodings: each element is stored as
 * {@code [varint length][bytes]} in one {@code byte[]}, so a small collection costs one array and no
 * object per element.
 */
final class Varint {
    private Varint() {
    }

    static int size(int v) {
        int n = 1;
        while ((v & ~0x7F) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    static int write(byte[] dst, int pos, int v) {
        while ((v & ~0x7F) != 0) {
            dst[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        dst[pos++] = (byte) v;
        return pos;
    }

    /** Reads the varint at {@code pos}; returns {@code value << 32 | bytesUsed}... split by callers via {@link #len}. */
    static int read(byte[] src, int pos) {
        int v = 0;
        int shift = 0;
        while (true) {
            byte b = src[pos++];
            v |= (b & 0x7F) << shift;
            if (b >= 0) {
                return v;
            }
            shift += 7;
        }
    }

    /** Number of bytes of the varint at {@code pos}. */
    static int len(byte[] src, int pos) {
        int n = 1;
        while (src[pos++] < 0) {
            n++;
        }
        return n;
    }
}
