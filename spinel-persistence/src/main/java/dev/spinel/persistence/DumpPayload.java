package dev.spinel.persistence;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;

/**
 * The serialized form of one value used by DUMP and RESTORE, as Redis 7.0 writes it: the RDB type
 * byte and value body, then the RDB version as 2 bytes little-endian (10), then the CRC-64 of all the
 * preceding bytes, 8 bytes little-endian.
 *
 * <p>Stateless and thread-safe.
 */
public final class DumpPayload {
    private DumpPayload() {
    }

    /** Serializes a snapshot taken by {@code codec.snapshot(value)}. Strings are LZF-compressed when long. */
    public static byte[] create(ValueCodec codec, Object snapshot) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        RdbOutput out = new RdbOutput(bytes, true);
        out.writeByte(codec.rdbType(snapshot));
        codec.write(snapshot, out);
        out.writeByte(Rdb.VERSION & 0xFF);
        out.writeByte(Rdb.VERSION >>> 8);
        out.writeUnchecked(out.crc());
        return bytes.toByteArray();
    }

    /**
     * True when the payload's footer is valid (Redis's {@code verifyDumpPayload}): at least 10 bytes, a
     * version no newer than ours, and a matching CRC.
     */
    public static boolean verify(byte[] p) {
        return verify(p, false);
    }

    /** {@link #verify(byte[])}, with the checksum left unchecked when {@code skipChecksum} (DEBUG SET-SKIP-CHECKSUM-VALIDATION). */
    public static boolean verify(byte[] p, boolean skipChecksum) {
        if (p.length < 10) {
            return false;
        }
        int footer = p.length - 10;
        int version = (p[footer] & 0xFF) | ((p[footer + 1] & 0xFF) << 8);
        if (version > Rdb.VERSION) {
            return false;
        }
        if (skipChecksum) {
            return true;
        }
        long crc = Crc64.update(0, p, 0, footer + 2);
        long stored = 0;
        for (int i = 0; i < 8; i++) {
            stored |= (long) (p[footer + 2 + i] & 0xFF) << (8 * i);
        }
        return crc == stored;
    }

    /**
     * Decodes the value of a payload that passed {@link #verify}. Throws {@link RdbException} when the
     * body is malformed, of an unknown type, or runs past the end of the payload.
     */
    public static Object read(ValueCodecs codecs, byte[] p) {
        // Redis reads the value from the whole payload, footer included: a body that claims more bytes
        // than it has takes them from the footer instead of failing. Same here, for identical results.
        RdbInput in = new RdbInput(new ByteArrayInputStream(p));
        int type = in.readByte();
        ValueCodec codec = codecs.forRdbType(type);
        if (codec == null) {
            throw new RdbException("Unknown RDB value type " + type);
        }
        Object v;
        try {
            v = codec.read(type, in);
        } catch (RdbException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new RdbException("Bad data format: " + e.getMessage(), e);
        }
        if (v == null) {
            throw new RdbException("Bad data format: empty collection");
        }
        return v;
    }
}
