package dev.spinel.persistence;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Reads RDB primitives from a stream, keeping the running CRC-64 of the bytes consumed and the
 * offset (for error messages). Every length is checked against a limit before anything is allocated,
 * so a corrupt length fails with an error instead of exhausting the heap.
 *
 * <p>Not thread-safe: one reader at a time.
 */
public final class RdbInput {
    /** Largest string accepted (Redis's proto-max-bulk-len ceiling for a single value). */
    private static final long MAX_STRING = 512L * 1024 * 1024;
    private final InputStream in;
    private final byte[] buf = new byte[1 << 16];
    private int pos;
    private int limit;
    private long consumedBefore; // bytes consumed before buf[0]
    private long crc;
    private int crcFrom; // buf index from which bytes are not yet in the CRC

    public RdbInput(InputStream in) {
        this.in = in;
    }

    /** The offset of the next byte. */
    public long offset() {
        return consumedBefore + pos;
    }

    /** The CRC-64 of every byte consumed so far. */
    public long crc() {
        crc = Crc64.update(crc, buf, crcFrom, pos - crcFrom);
        crcFrom = pos;
        return crc;
    }

    private boolean fill() {
        crc();
        consumedBefore += limit;
        pos = 0;
        limit = 0;
        crcFrom = 0;
        try {
            int n = in.read(buf, 0, buf.length);
            if (n <= 0) {
                return false;
            }
            limit = n;
            return true;
        } catch (IOException e) {
            throw RdbException.shortRead("read failed at offset " + offset() + ": " + e.getMessage(), offset(), e);
        }
    }

    /** True when no byte is left. */
    public boolean atEnd() {
        return pos == limit && !fill();
    }

    public int readByte() {
        if (pos == limit && !fill()) {
            throw truncated();
        }
        return buf[pos++] & 0xFF;
    }

    RdbException truncated() {
        return RdbException.shortRead("Unexpected EOF reading RDB file at offset " + offset(), offset(), null);
    }

    public void readFully(byte[] b, int off, int len) {
        while (len > 0) {
            if (pos == limit && !fill()) {
                throw truncated();
            }
            int n = Math.min(len, limit - pos);
            System.arraycopy(buf, pos, b, off, n);
            pos += n;
            off += n;
            len -= n;
        }
    }

    public long readLongLE() {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v |= (long) readByte() << (8 * i);
        }
        return v;
    }

    public int readIntLE() {
        int v = 0;
        for (int i = 0; i < 4; i++) {
            v |= readByte() << (8 * i);
        }
        return v;
    }

    /** Redis's {@code rdbLoadLen} for a plain length (an encoded-value marker is an error here). */
    public long readLength() {
        int first = readByte();
        int kind = first >>> 6;
        if (kind == Rdb.ENCVAL) {
            throw new RdbException("Unexpected encoded value where a length was expected at offset " + (offset() - 1));
        }
        return lengthBody(first);
    }

    private long lengthBody(int first) {
        int kind = first >>> 6;
        if (kind == Rdb.LEN_6BIT) {
            return first & 0x3F;
        }
        if (kind == Rdb.LEN_14BIT) {
            return ((first & 0x3F) << 8) | readByte();
        }
        if (first == Rdb.LEN_32BIT) {
            long v = 0;
            for (int i = 0; i < 4; i++) {
                v = (v << 8) | readByte();
            }
            return v;
        }
        if (first == Rdb.LEN_64BIT) {
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v = (v << 8) | readByte();
            }
            return v;
        }
        throw new RdbException("Unknown length encoding " + first + " in rdbLoadLen() at offset " + (offset() - 1));
    }

    /** Redis's {@code rdbGenericLoadStringObject}: raw, INT8/16/32 or LZF, always returned as bytes. */
    public byte[] readString() {
        int first = readByte();
        if ((first >>> 6) == Rdb.ENCVAL) {
            int enc = first & 0x3F;
            switch (enc) {
                case Rdb.ENC_INT8:
                    return ascii((byte) readByte());
                case Rdb.ENC_INT16: {
                    int lo = readByte();
                    return ascii((short) (lo | (readByte() << 8)));
                }
                case Rdb.ENC_INT32:
                    return ascii(readIntLE());
                case Rdb.ENC_LZF:
                    return readLzf();
                default:
                    throw new RdbException("Unknown RDB string encoding type " + enc + " at offset " + (offset() - 1));
            }
        }
        long len = lengthBody(first);
        byte[] s = new byte[checkLen(len)];
        readFully(s, 0, s.length);
        return s;
    }

    private byte[] readLzf() {
        long clen = readLength();
        long len = readLength();
        byte[] c = new byte[checkLen(clen)];
        readFully(c, 0, c.length);
        try {
            return Lzf.decompress(c, 0, c.length, checkLen(len));
        } catch (IllegalArgumentException e) {
            throw new RdbException("Invalid LZF compressed string before offset " + offset() + ": " + e.getMessage());
        }
    }

    private int checkLen(long len) {
        if (len < 0 || len > MAX_STRING) {
            throw new RdbException("String length " + len + " out of range at offset " + offset());
        }
        return (int) len;
    }

    private static byte[] ascii(long v) {
        return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
    }
}
