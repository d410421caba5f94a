package dev.spinel.persistence;

/**
 * Constants of Redis's RDB format, version 10 (Redis 7.0), as named in {@code rdb.h}.
 *
 * <p>File layout: {@code "REDIS0010"}, AUX fields ({@code 0xFA key value}), the function
 * libraries ({@code 0xF5 code}, Redis 7.0's {@code RDB_OPCODE_FUNCTION2}), then per non-empty database
 * {@code 0xFE dbnum}, {@code 0xFB dbsize expires-size} and its keys ({@code [0xFC ms-le64] [0xF8 idle |
 * 0xF9 freq] type key value}), then {@code 0xFF} and the CRC-64 of everything before it, little-endian
 * (zero when {@code rdbchecksum no}).
 */
public final class Rdb {
    public static final int VERSION = 10;
    public static final byte[] MAGIC = {'R', 'E', 'D', 'I', 'S'};

    // Value types (rdb.h RDB_TYPE_*).
    public static final int TYPE_STRING = 0;
    public static final int TYPE_LIST = 1;
    public static final int TYPE_SET = 2;
    public static final int TYPE_ZSET = 3;
    public static final int TYPE_HASH = 4;
    public static final int TYPE_ZSET_2 = 5;
    public static final int TYPE_MODULE_PRE_GA = 6;
    public static final int TYPE_MODULE_2 = 7;
    public static final int TYPE_HASH_ZIPMAP = 9;
    public static final int TYPE_LIST_ZIPLIST = 10;
    public static final int TYPE_SET_INTSET = 11;
    public static final int TYPE_ZSET_ZIPLIST = 12;
    public static final int TYPE_HASH_ZIPLIST = 13;
    public static final int TYPE_LIST_QUICKLIST = 14;
    public static final int TYPE_STREAM_LISTPACKS = 15;
    public static final int TYPE_HASH_LISTPACK = 16;
    public static final int TYPE_ZSET_LISTPACK = 17;
    public static final int TYPE_LIST_QUICKLIST_2 = 18;
    public static final int TYPE_STREAM_LISTPACKS_2 = 19;

    // Opcodes.
    public static final int OPCODE_FUNCTION_PRE_GA = 246;
    public static final int OPCODE_FUNCTION2 = 245;
    public static final int OPCODE_MODULE_AUX = 247;
    public static final int OPCODE_IDLE = 248;
    public static final int OPCODE_FREQ = 249;
    public static final int OPCODE_AUX = 250;
    public static final int OPCODE_RESIZEDB = 251;
    public static final int OPCODE_EXPIRETIME_MS = 252;
    public static final int OPCODE_EXPIRETIME = 253;
    public static final int OPCODE_SELECTDB = 254;
    public static final int OPCODE_EOF = 255;

    // Length encodings: the top two bits of the first byte.
    static final int LEN_6BIT = 0;
    static final int LEN_14BIT = 1;
    static final int LEN_32BIT = 0x80;
    static final int LEN_64BIT = 0x81;
    static final int ENCVAL = 3;
    static final int ENC_INT8 = 0;
    static final int ENC_INT16 = 1;
    static final int ENC_INT32 = 2;
    static final int ENC_LZF = 3;

    private Rdb() {
    }

    /**
     * Redis 7.0's name for the blob a value of this RDB type is checked as ("Hash ziplist" in "Hash ziplist integrity
     * check failed."), or null for the plain encodings; error messages use it so that tools looking for Redis's
     * words find them.
     */
    public static String integrityCheckName(int type) {
        return switch (type) {
            case 9 -> "Zipmap";
            case 10 -> "List ziplist";
            case 11 -> "Intset";
            case 12 -> "Zset ziplist";
            case 13 -> "Hash ziplist";
            case 14 -> "Ziplist";
            case 16 -> "Hash listpack";
            case 17 -> "Zset listpack";
            case 18 -> "Listpack";
            case 15, 19, 21 -> "Stream listpack";
            default -> null;
        };
    }
}
