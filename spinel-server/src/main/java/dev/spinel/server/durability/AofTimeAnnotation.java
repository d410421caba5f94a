package dev.spinel.server.durability;

import dev.spinel.server.config.ServerConfig;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.LockSupport;

/**
 * What Redis adds to the log besides commands, and its debug pacing: with aof-timestamp-enabled, a
 * "#TS:&lt;unix seconds&gt;" line before the first command of each second, as Redis's feedAppendOnlyFile
 * writes (redis-check-aof --truncate-to-timestamp cuts the log there); and DEBUG AOF-FLUSH-SLEEP's pause
 * before each write.
 *
 * <p>Thread-safety: {@link #lineIfNewSecond} is guarded by the owning {@link AofFile}'s append lock;
 * {@link #flushSleep} is stateless.
 */
final class AofTimeAnnotation {
    private final ServerConfig config;
    /** Unix second of the last "#TS:" annotation written. */
    private long annotatedSecond;

    AofTimeAnnotation(ServerConfig config) {
        this.config = config;
    }

    /** The "#TS:" line to put before a command logged now, or null (option off, or this second has one). */
    byte[] lineIfNewSecond() {
        if (!config.aofTimestampEnabled.value()) {
            return null; // the clock is read only with the option on
        }
        long now = System.currentTimeMillis() / 1000;
        if (now <= annotatedSecond) {
            return null;
        }
        annotatedSecond = now;
        return ("#TS:" + now + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** DEBUG AOF-FLUSH-SLEEP: Redis's flushAppendOnlyFile sleeps before it writes. */
    static void flushSleep(ServerConfig config) {
        int micros = config.aofFlushSleepMicros;
        if (micros <= 0) {
            return;
        }
        long deadline = System.nanoTime() + micros * 1000L;
        for (long left = micros * 1000L; left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left); // may return early
        }
    }
}
