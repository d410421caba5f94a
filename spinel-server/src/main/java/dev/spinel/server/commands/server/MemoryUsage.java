package dev.spinel.server.commands.server;

import dev.spinel.protocol.Numbers;
import dev.spinel.store.GrowableString;
import dev.spinel.store.TypedValue;

/**
 * MEMORY USAGE's estimate, following Redis 7.0's accounting on 64-bit jemalloc so that the numbers
 * clients see match a real server for strings: a dict entry (24 bytes), the key as an sds string,
 * and the value object (an int-encoded robj is 16 bytes; an embstr is one allocation of
 * robj + sdshdr8 + bytes + NUL up to 44 bytes; longer strings are a robj plus a separate sds).
 * Collections report Spinel's own heap estimate of their structure plus the same key overhead.
 *
 * <p>Stateless.
 */
public final class MemoryUsage {
    private static final int DICT_ENTRY = 24;
    private static final int ROBJ = 16;
    private static final int EMBSTR_LIMIT = 44;

    private MemoryUsage() {
    }

    public static long of(byte[] key, Object value) {
        long usage = DICT_ENTRY + sds(key.length);
        if (value instanceof byte[] s) {
            if (s.length <= 20 && Numbers.isLong(s, 0, s.length)) {
                usage += ROBJ;
            } else if (s.length <= EMBSTR_LIMIT) {
                usage += jemalloc(ROBJ + 3 + s.length + 1);
            } else {
                usage += ROBJ + sds(s.length);
            }
        } else if (value instanceof GrowableString g) {
            usage += ROBJ + sds(g.capacity()); // a raw sds with sdsMakeRoomFor's spare room
        } else if (value instanceof TypedValue t) {
            usage += ROBJ + t.memoryUsage();
        }
        return usage;
    }

    /** Allocation size of an sds string of this length: the smallest header type that fits, plus NUL. */
    static long sds(long len) {
        int header;
        if (len < 32) {
            header = 1;
        } else if (len < 256) {
            header = 3;
        } else if (len < 65536) {
            header = 5;
        } else if (len < (1L << 32)) {
            header = 9;
        } else {
            header = 17;
        }
        return jemalloc(header + len + 1);
    }

    /** jemalloc's size class for a request: 8, then multiples of 16 up to 128, then four classes per doubling. */
    public static long jemalloc(long size) {
        if (size <= 8) {
            return 8;
        }
        if (size <= 128) {
            return (size + 15) & ~15L;
        }
        long pow = Long.highestOneBit(size - 1);
        long step = pow / 4;
        return (size + step - 1) / step * step;
    }
}
