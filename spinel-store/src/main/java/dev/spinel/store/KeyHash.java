package dev.spinel.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.SecureRandom;

/**
 * The keyspace's hash function: 8 bytes per step with a multiply-xorshift mix, seeded per process
 * so that a client cannot precompute colliding keys (Redis uses a seeded SipHash for the same reason).
 *
 * <p>Stateless after initialisation; thread-safe.
 */
public final class KeyHash {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long SEED = new SecureRandom().nextLong();

    private KeyHash() {
    }

    public static int hash(byte[] b, int off, int len) {
        long h = start(len);
        int i = 0;
        for (; i + 8 <= len; i += 8) {
            h = step(h, (long) LONGS.get(b, off + i));
        }
        long tail = 0;
        for (; i < len; i++) {
            tail = (tail << 8) | (b[off + i] & 0xff);
        }
        return finish(h, tail);
    }

    // The three stages, shared with InlineKeyEntry, which hashes a key held in its fields the same way.

    static long start(int len) {
        return SEED ^ (len * 0x9E3779B97F4A7C15L);
    }

    /** Mixes in the next 8 bytes of the key, read little endian. */
    static long step(long h, long word) {
        h ^= word;
        h *= 0xbf58476d1ce4e5b9L;
        return h ^ (h >>> 31);
    }

    /** Mixes in the last {@code len % 8} bytes (first byte most significant) and finalises. */
    static int finish(long h, long tail) {
        h ^= tail;
        h *= 0x94d049bb133111ebL;
        h ^= h >>> 29;
        h *= 0xbf58476d1ce4e5b9L;
        h ^= h >>> 32;
        return (int) h;
    }

    public static int hash(byte[] key) {
        return hash(key, 0, key.length);
    }
}
