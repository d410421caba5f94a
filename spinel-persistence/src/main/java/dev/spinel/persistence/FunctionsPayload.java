package dev.spinel.persistence;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload of FUNCTION DUMP and FUNCTION RESTORE, as Redis 7.0 writes it: per library
 * {@code RDB_OPCODE_FUNCTION2} (245) and its source code as an RDB string, then the RDB version as 2 bytes
 * little-endian and the CRC-64 of all the preceding bytes, 8 bytes little-endian (the footer of DUMP,
 * {@link DumpPayload}).
 *
 * <p>Stateless and thread-safe.
 */
public final class FunctionsPayload {
    private FunctionsPayload() {
    }

    /** Serializes the libraries' codes, in the given order. */
    public static byte[] create(List<byte[]> codes) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        RdbOutput out = new RdbOutput(bytes, true);
        RdbWriter.writeFunctions(out, codes);
        out.writeByte(Rdb.VERSION & 0xFF);
        out.writeByte(Rdb.VERSION >>> 8);
        out.writeUnchecked(out.crc());
        out.flush();
        return bytes.toByteArray();
    }

    /**
     * The libraries' codes of a payload that passed {@link DumpPayload#verify}. Throws {@link RdbException}
     * with Redis's text (the reply of FUNCTION RESTORE is {@code "ERR " + message}) when it holds anything
     * else (Redis's {@code functionRestoreCommand}).
     */
    public static List<byte[]> read(byte[] p) {
        RdbInput in = new RdbInput(new ByteArrayInputStream(p));
        List<byte[]> codes = new ArrayList<>();
        while (p.length - in.offset() > 10) {
            int type = in.readByte();
            if (type == Rdb.OPCODE_FUNCTION_PRE_GA) {
                throw new RdbException("Pre-GA function format not supported");
            }
            if (type != Rdb.OPCODE_FUNCTION2) {
                throw new RdbException("given type is not a function");
            }
            try {
                codes.add(in.readString());
            } catch (RuntimeException e) {
                throw new RdbException("failed loading the given functions payload", e);
            }
        }
        return codes;
    }
}
