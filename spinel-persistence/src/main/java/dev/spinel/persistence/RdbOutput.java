package dev.spinel.persistence;

import dev.spinel.store.Entry;
import dev.spinel.store.GrowableString;
import dev.spinel.store.StringEncoding;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes RDB primitives (lengths, strings in Redis's encodings, little-endian numbers) to a stream,
 * keeping the running CRC-64 of everything written. Strings are encoded as Redis's
 * {@code rdbSaveRawString} does: a canonical integer of at most 11 characters that fits in 32 bits is
 * stored as INT8/16/32; with compression on, strings longer than 20 bytes are stored LZF-compressed
 * when that saves at least 4 bytes; anything else raw.
 *
 * <p>Not thread-safe: one writer at a time.
 */
public final class RdbOutput {
    private final OutputStream out;
    private final boolean compression;
    private final byte[] buf = new byte[1 << 16];
    private int pos;
    private long crc;
    private long written;
    private byte[] lzfScratch = new byte[0];
    private byte[] valueScratch;
    /**
     * LZF's hash tables (256 KB), one per thread and reused by every output on it, so a DUMP does not
     * allocate one; like Redis's, whose table is a stack array that keeps the previous call's entries.
     */
    private static final ThreadLocal<int[]> LZF_TABLES = ThreadLocal.withInitial(Lzf::newTable);

    public RdbOutput(OutputStream out, boolean compression) {
        this.out = out;
        this.compression = compression;
    }

    public long crc() {
        flushBuffer();
        return crc;
    }

    /** Bytes written so far. */
    public long written() {
        return written + pos;
    }

    public void writeByte(int b) {
        if (pos == buf.length) {
            flushBuffer();
        }
        buf[pos++] = (byte) b;
    }

    public void write(byte[] b, int off, int len) {
        if (len > buf.length - pos) {
            flushBuffer();
            if (len > buf.length) {
                crc = Crc64.update(crc, b, off, len);
                io(b, off, len);
                written += len;
                return;
            }
        }
        System.arraycopy(b, off, buf, pos, len);
        pos += len;
    }

    public void write(byte[] b) {
        write(b, 0, b.length);
    }

    /** Writes the bytes without adding them to the CRC (the trailing checksum itself). */
    public void writeUnchecked(long littleEndian64) {
        flushBuffer();
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (littleEndian64 >>> (8 * i));
        }
        io(b, 0, 8);
        written += 8;
    }

    public void writeLongLE(long v) {
        for (int i = 0; i < 8; i++) {
            writeByte((int) (v >>> (8 * i)));
        }
    }

    /** Redis's {@code rdbSaveLen}; {@code len} is unsigned (streams store IDs and -1 counters this way). */
    public void writeLength(long len) {
        if (len >= 0 && len < (1 << 6)) {
            writeByte((int) len);
        } else if (len >= 0 && len < (1 << 14)) {
            writeByte((int) ((Rdb.LEN_14BIT << 6) | (len >>> 8)));
            writeByte((int) len);
        } else if (len >= 0 && len <= 0xFFFFFFFFL) {
            writeByte(Rdb.LEN_32BIT);
            for (int i = 3; i >= 0; i--) {
                writeByte((int) (len >>> (8 * i)));
            }
        } else {
            writeByte(Rdb.LEN_64BIT);
            for (int i = 7; i >= 0; i--) {
                writeByte((int) (len >>> (8 * i)));
            }
        }
    }

    /** Redis's {@code rdbSaveRawString}: the most compact of int, LZF and raw encodings. */
    public void writeString(byte[] s) {
        writeString(s, s.length);
    }

    /**
     * A string value as its entry holds it ({@link Entry#storedValue()}: a {@code byte[]}, or the entry itself
     * for a short string held in its fields), read through a scratch array of this output's: no array per value.
     */
    public void writeStringValue(Object stored) {
        if (stored instanceof Entry e) {
            if (valueScratch == null) {
                valueScratch = new byte[Entry.MAX_INLINE_STRING];
            }
            writeString(e.stringBytes(valueScratch), e.stringLength());
        } else if (stored instanceof GrowableString g) {
            writeString(g.array(), g.length()); // frozen by the snapshot: never changes again
        } else {
            writeString((byte[]) stored);
        }
    }

    /** {@link #writeString(byte[])} of the first {@code len} bytes of {@code s} (a reused scratch array). */
    public void writeString(byte[] s, int len) {
        if (len <= 11 && StringEncoding.isInteger(s, len)) {
            long v = StringEncoding.integerValue(s, len);
            if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
                writeIntEncoded(v);
                return;
            }
        }
        if (compression && len > 20 && writeLzf(s, len)) {
            return;
        }
        writeLength(len);
        write(s, 0, len);
    }

    /** A string holding the decimal text of {@code v} (Redis's {@code rdbSaveLongLongAsStringObject}). */
    public void writeString(long v) {
        if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
            writeIntEncoded(v);
        } else {
            byte[] s = Long.toString(v).getBytes(StandardCharsets.US_ASCII);
            writeLength(s.length);
            write(s);
        }
    }

    private void writeIntEncoded(long v) {
        if (v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) {
            writeByte((Rdb.ENCVAL << 6) | Rdb.ENC_INT8);
            writeByte((int) v);
        } else if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) {
            writeByte((Rdb.ENCVAL << 6) | Rdb.ENC_INT16);
            writeByte((int) v);
            writeByte((int) (v >>> 8));
        } else {
            writeByte((Rdb.ENCVAL << 6) | Rdb.ENC_INT32);
            for (int i = 0; i < 4; i++) {
                writeByte((int) (v >>> (8 * i)));
            }
        }
    }

    private boolean writeLzf(byte[] s, int len) {
        int limit = len - 4;
        if (lzfScratch.length < limit) {
            lzfScratch = new byte[limit];
        }
        int n = Lzf.compress(s, len, lzfScratch, limit, LZF_TABLES.get());
        if (n == 0) {
            return false;
        }
        writeByte((Rdb.ENCVAL << 6) | Rdb.ENC_LZF);
        writeLength(n);
        writeLength(len);
        write(lzfScratch, 0, n);
        if (lzfScratch.length > (1 << 20)) {
            lzfScratch = new byte[0]; // do not pin a huge scratch buffer
        }
        return true;
    }

    /** Pushes buffered bytes to the stream (and into the CRC). */
    public void flush() {
        flushBuffer();
        try {
            out.flush();
        } catch (IOException e) {
            throw new RdbException("write failed: " + e.getMessage(), e);
        }
    }

    private void flushBuffer() {
        if (pos > 0) {
            crc = Crc64.update(crc, buf, 0, pos);
            io(buf, 0, pos);
            written += pos;
            pos = 0;
        }
    }

    private void io(byte[] b, int off, int len) {
        try {
            out.write(b, off, len);
        } catch (IOException e) {
            throw new RdbException("write failed: " + e.getMessage(), e);
        }
    }
}
