package dev.spinel.persistence;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Reads an RDB file (versions 1 to {@link Rdb#VERSION}) and hands its contents to an {@link RdbSink}.
 * Every error names what was wrong and the byte offset where it was found; a checksum mismatch is
 * refused, a zero checksum (written under {@code rdbchecksum no}) is accepted as Redis does.
 *
 * <p>Thread-safety: one {@link #read} at a time per instance (it records the length read); instances are cheap.
 */
public final class RdbReader {
    private final ValueCodecs codecs;
    private final int databases;

    /** @param databases the number of databases of the keyspace; a SELECTDB beyond it is refused */
    public RdbReader(ValueCodecs codecs, int databases) {
        this.codecs = codecs;
        this.databases = databases;
    }

    /** Bytes the last {@link #read} consumed, up to and with the checksum (an AOF base continues with commands there). */
    private long length;

    public long length() {
        return length;
    }

    /** Reads a whole file; returns the RDB version found. */
    public int read(InputStream stream, RdbSink sink) {
        RdbInput in = new RdbInput(stream);
        byte[] header = new byte[9];
        try {
            in.readFully(header, 0, 9);
        } catch (RdbException e) {
            throw RdbException.shortRead("Short read or OOM loading DB. Unrecoverable error, aborting now.", e.shortReadAt(), e);
        }
        for (int i = 0; i < 5; i++) {
            if (header[i] != Rdb.MAGIC[i]) {
                throw new RdbException("Wrong signature trying to load DB from file");
            }
        }
        int version = 0;
        for (int i = 5; i < 9; i++) {
            int d = header[i] - '0';
            if (d < 0 || d > 9) {
                throw new RdbException("Wrong signature trying to load DB from file");
            }
            version = version * 10 + d;
        }
        if (version < 1 || version > Rdb.VERSION) {
            throw new RdbException("Can't handle RDB format version " + version);
        }
        int db = 0;
        long expireAt = -1;
        long idle = -1;
        int freq = -1;
        while (true) {
            long at = in.offset();
            int type = in.readByte();
            switch (type) {
                case Rdb.OPCODE_EXPIRETIME -> {
                    expireAt = (in.readIntLE() & 0xFFFFFFFFL) * 1000;
                    continue;
                }
                case Rdb.OPCODE_EXPIRETIME_MS -> {
                    expireAt = in.readLongLE();
                    continue;
                }
                case Rdb.OPCODE_FREQ -> {
                    freq = in.readByte();
                    continue;
                }
                case Rdb.OPCODE_IDLE -> {
                    idle = in.readLength();
                    continue;
                }
                case Rdb.OPCODE_SELECTDB -> {
                    long n = in.readLength();
                    if (n >= databases) {
                        throw new RdbException("FATAL: Data file was created with a Redis server configured to handle more than "
                                + databases + " databases. Exiting");
                    }
                    db = (int) n;
                    continue;
                }
                case Rdb.OPCODE_RESIZEDB -> {
                    long size = in.readLength();
                    long expires = in.readLength();
                    sink.resize(db, size, expires);
                    continue;
                }
                case Rdb.OPCODE_AUX -> {
                    byte[] k = in.readString();
                    byte[] v = in.readString();
                    sink.aux(k, v);
                    continue;
                }
                case Rdb.OPCODE_MODULE_AUX ->
                        throw new RdbException("The RDB file contains AUX module data I can't load: no matching module at offset " + at);
                case Rdb.OPCODE_FUNCTION2 -> {
                    sink.function(in.readString());
                    continue;
                }
                case Rdb.OPCODE_FUNCTION_PRE_GA ->
                        throw new RdbException("Pre-release function format not supported at offset " + at);
                case Rdb.OPCODE_EOF -> {
                    if (version >= 5) {
                        long computed = in.crc();
                        long stored = in.readLongLE();
                        if (stored != 0 && stored != computed) {
                            // Redis's two log lines (rdbLoadRio, then rdbReportCorruptRDB)
                            throw new RdbException(String.format(
                                    "Wrong RDB checksum expected: (%x) but got (%x). Aborting now.\n"
                                            + "Internal error in RDB reading offset %d -> RDB CRC error", computed, stored, at));
                        }
                    }
                    length = in.offset();
                    return version;
                }
                default -> {
                    ValueCodec codec = codecs.forRdbType(type);
                    if (codec == null) {
                        throw new RdbException("Unknown RDB value type " + type + " at offset " + at);
                    }
                    byte[] key = in.readString();
                    Object value;
                    try {
                        value = codec.read(type, in);
                    } catch (RuntimeException e) {
                        String check = Rdb.integrityCheckName(type);
                        if (check != null) { // Redis's words first (its log line), then which key, where and why
                            throw new RdbException("Internal error in RDB reading offset 0 -> " + check + " integrity check failed.\n"
                                    + "Reading key '" + new String(key, StandardCharsets.UTF_8) + "' of type " + type + " at offset " + at
                                    + ": " + check + " integrity check failed (" + e.getMessage() + ")", e);
                        }
                        if (e instanceof RdbException) {
                            throw e;
                        }
                        throw new RdbException("Bad value of type " + type + " at offset " + at + ": " + e.getMessage(), e);
                    }
                    if (value != null) {
                        sink.entry(db, key, value, expireAt, idle, freq);
                    } else { // an empty collection: Redis skips the key ("empty keys skipped")
                        sink.emptyKey(db, key);
                    }
                    expireAt = -1;
                    idle = -1;
                    freq = -1;
                }
            }
        }
    }
}
